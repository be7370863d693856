package gluelab.tune;

import java.util.List;

/**
 * One tuning of one op instance, with its compile accounting: how many configs, the compile wall
 * seconds, the sum of per-config compile seconds, the benchmark seconds, the pick and the runner-up.
 * Where several tunings were compiled in one batch, {@code compileWallSeconds} is that batch's wall
 * and {@code compileShared} the number of tunings it served (1: compiled alone); {@code compileProcesses}
 * the compile worker processes it ran on (0: in this process) and {@code compileHow} that in words,
 * with the reason where worker processes could not be used. The per-config sum is what the configs
 * cost where they were compiled; the serial cost is what {@code --serial} measures.
 * {@code fromCache}: a warm run that compiled and timed nothing.
 */
public record TuneResult(String op, String pass, String dtype, long tokens, String shape, String code, String kernel, String mode,
                         int configs, double compileWallSeconds, double compileSumSeconds, int compiled, double benchmarkSeconds,
                         String pick, String runnerUp, double pickUs, double runnerUpUs, double checkRelL2, double checkMaxUlp,
                         List<ConfigResult> results, int compileProcesses, int compileShared, String compileHow, boolean fromCache) {
    /** The mode of a shipped pick standing in for a tuning (nothing compiled or timed here). */
    public static final String SHIPPED = "shipped";

    public TuneResult {
        // Records stored before the batch fields existed: each tuning compiled alone.
        if (compileShared < 1) compileShared = 1;
        if (compileHow == null) compileHow = "";
    }

    public TuneResult asCached() {
        return new TuneResult(op, pass, dtype, tokens, shape, code, kernel, mode, configs, compileWallSeconds, compileSumSeconds, compiled,
                benchmarkSeconds, pick, runnerUp, pickUs, runnerUpUs, checkRelL2, checkMaxUlp, results, compileProcesses, compileShared, compileHow, true);
    }

    /** This tuning's share of its compile batch's wall (the whole wall when it compiled alone): shares add up to the batches' walls. */
    public double compileWallShare() { return compileWallSeconds / compileShared; }

    /** Where the pick came from, for tables: "shipped", "cache" (an earlier tune here) or how it was tuned now. */
    public String source() { return SHIPPED.equals(mode) ? SHIPPED : fromCache ? "cache" : mode; }

    /** "rmsnorm/fwd T=32768". */
    public String label() { return op + "/" + pass + " T=" + tokens; }
}
