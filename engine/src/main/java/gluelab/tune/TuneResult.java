package gluelab.tune;

import java.util.List;

/**
 * One tuning of one op instance, with its compile accounting: how many configs, the compile wall
 * seconds, the sum of per-config compile seconds (what compiling one by one costs), the benchmark
 * seconds, the pick and the runner-up. {@code fromCache}: a warm run that compiled and timed nothing.
 */
public record TuneResult(String op, String pass, String dtype, long tokens, String shape, String code, String kernel, String mode,
                         int configs, double compileWallSeconds, double compileSumSeconds, int compiled, double benchmarkSeconds,
                         String pick, String runnerUp, double pickUs, double runnerUpUs, double checkRelL2, double checkMaxUlp,
                         List<ConfigResult> results, boolean fromCache) {
    public TuneResult asCached() {
        return new TuneResult(op, pass, dtype, tokens, shape, code, kernel, mode, configs, compileWallSeconds, compileSumSeconds, compiled,
                benchmarkSeconds, pick, runnerUp, pickUs, runnerUpUs, checkRelL2, checkMaxUlp, results, true);
    }

    /** "rmsnorm/fwd T=32768". */
    public String label() { return op + "/" + pass + " T=" + tokens; }
}
