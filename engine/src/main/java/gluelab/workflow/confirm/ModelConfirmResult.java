package gluelab.workflow.confirm;

import gluelab.ops.Replay;
import gluelab.timing.Noise;
import gluelab.timing.QuietCheck;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Step 07 on the analyst's model: each fix against the model as written in {@link ModelConfirmation#PROCESSES}
 * fresh Python processes, the quiet checks before and after, every process (pid, state, the device's
 * readings and clocks before and after, what it timed with raw samples), and per fix, token count and
 * launch kind the confirmed row: each side's median over the processes within {@link Confirmation#WITHIN}
 * of the best. A FAILED process (killed, crashed, throttled) contributes no numbers.
 */
public record ModelConfirmResult(int format, String id, String model, List<ModelFix> fixes, List<Long> tokens, QuietCheck before, QuietCheck after,
                                 List<PythonRun> processes, List<Row> rows, List<String> flags, String finished) {
    public static final int FORMAT = 1;
    /** Processes a row needs on both sides before its numbers count as confirmed. */
    public static final int CONFIRMING = 3;
    /** The words of a flag naming a planned token count that was not confirmed (step 05 measured no fix there). */
    public static final String NOT_CONFIRMED = " not confirmed: ";

    public ModelConfirmResult {
        fixes = List.copyOf(fixes);
        tokens = List.copyOf(tokens);
        processes = List.copyOf(processes);
        rows = List.copyOf(rows);
        flags = List.copyOf(flags);
    }

    /** One fresh Python process: OK, or FAILED with the reason and no timing. */
    public record PythonRun(int index, long pid, ProcessRun.State state, String reason, double seconds, Map<String, String> before,
                          Map<String, String> after, ModelVariantTiming timing) {
        public PythonRun {
            before = before == null ? Map.of() : Map.copyOf(before);
            after = after == null ? Map.of() : Map.copyOf(after);
            reason = reason == null ? "" : reason;
        }

        public boolean ok() { return state == ProcessRun.State.OK; }

        public String clocks() {
            String b = before.get("sm_clock_mhz"), a = after.get("sm_clock_mhz");
            return b == null && a == null ? "not reported by this device" : "SM " + b + " -> " + a + " MHz";
        }
    }

    /**
     * One fix at one token count and launch kind. {@code skip}: why the row is not measured on this
     * device (graphs on the CPU), "" when it is; {@code caveat}: what weakens the numbers; {@code noise}:
     * the relative noise its difference must clear ({@link Noise#of}: the larger side's, each side the
     * larger of its kept processes' own noise and their spread), NaN where unknown (records before it).
     */
    public record Row(String fix, long tokens, Replay replay, double baselineUs, int baselineN, double fixedUs, int fixedN, int processesOk,
                      String skip, String caveat, Double noise) {
        public Row {
            if (noise == null) noise = Double.NaN;
        }

        /** A row whose noise is not known. */
        public Row(String fix, long tokens, Replay replay, double baselineUs, int baselineN, double fixedUs, int fixedN, int processesOk, String skip, String caveat) {
            this(fix, tokens, replay, baselineUs, baselineN, fixedUs, fixedN, processesOk, skip, caveat, Double.NaN);
        }

        public boolean measured() { return skip.isEmpty() && baselineN > 0 && fixedN > 0; }

        public double deltaPercent() { return measured() ? 100 * (fixedUs / baselineUs - 1) : Double.NaN; }

        /** Its difference is inside its noise ({@link Noise#within}): neither a win nor a loss. */
        public boolean inconclusive() { return measured() && Noise.within(fixedUs / baselineUs - 1, noise); }

        /** At least {@link Confirmation#WITHIN} faster, and outside its noise. */
        public boolean win() { return measured() && fixedUs < baselineUs * (1 - Confirmation.WITHIN) && !inconclusive(); }

        /** The processes behind the smaller side: what its median is of. */
        public int kept() { return Math.min(baselineN, fixedN); }

        /** What its difference says beside its noise: "inconclusive: -3.2% is within the noise (8.1%)" when inside it, else "". */
        public String noiseVerdict() { return inconclusive() ? Noise.caveat(fixedUs / baselineUs - 1, noise) : ""; }

        /** "1.05x faster (...)", opened by its {@link #noiseVerdict()} when the difference is inside the noise. */
        public String describe() {
            if (!skip.isEmpty()) return "skipped: " + skip;
            if (!measured()) return "not measured: no process timed both";
            double r = baselineUs / fixedUs;
            return (inconclusive() ? noiseVerdict() + "; " : "")
                    + (r >= 1 ? String.format(Locale.ROOT, "%.2fx faster", r) : String.format(Locale.ROOT, "%.2fx slower", 1 / r))
                    + String.format(Locale.ROOT, " (%.1f vs %.1f us; n %d and %d of %d processes)", fixedUs, baselineUs, fixedN, baselineN, processesOk);
        }
    }

    public List<PythonRun> failed() { return processes.stream().filter(p -> !p.ok()).toList(); }

    /** No row was measured (every process failed, or no process timed both sides): the record keeps why, but nothing was confirmed. */
    public boolean nothingMeasured() { return rows.stream().noneMatch(Row::measured); }

    public int processesOk() { return (int) processes.stream().filter(PythonRun::ok).count(); }

    public java.util.Optional<Row> row(String fix, long tokens, Replay replay) {
        return rows.stream().filter(r -> r.fix().equals(fix) && r.tokens() == tokens && r.replay() == replay).findFirst();
    }

    /** Fixes that win launched normally but not under CUDA graphs at some token count: the saving was host time. */
    public List<String> hostTime() {
        List<String> out = new ArrayList<>();
        for (Row d : rows) {
            if (d.replay() != Replay.DIRECT || !d.win()) continue;
            row(d.fix(), d.tokens(), Replay.GRAPH).filter(g -> g.measured() && !g.win()).ifPresent(g -> out.add(d.fix() + " T=" + d.tokens()));
        }
        return out;
    }

    public String summary() {
        return processesOk() + " of " + processes.size() + " processes finished"
                + (failed().isEmpty() ? "" : "; FAILED: " + failed().stream().map(p -> "process " + p.index() + " (pid " + p.pid() + ", " + p.reason() + ")").toList())
                + "; " + rows.stream().filter(Row::win).count() + " of " + rows.stream().filter(Row::measured).count() + " measured rows win"
                + (rows.stream().anyMatch(Row::inconclusive) ? ", " + rows.stream().filter(Row::inconclusive).count() + " " + Noise.INCONCLUSIVE + " (within the noise)" : "")
                + (hostTime().isEmpty() ? "" : "; host time: " + hostTime())
                + (before.quiet() && after.quiet() ? "; device quiet" : "; device NOT quiet")
                + flags.stream().filter(f -> f.contains(NOT_CONFIRMED)).map(f -> "; " + f).reduce("", String::concat);
    }

    public String text() {
        StringBuilder sb = new StringBuilder("confirmation " + id + " of " + model + ": each fix vs the model as written, fwd+bwd, in "
                + processes.size() + " fresh Python processes (" + processesOk() + " finished)\n");
        sb.append(String.format(Locale.ROOT, "  %-18s %7s %-7s %11s %11s %9s %7s  %s%n", "fix", "tokens", "launch", "baseline_us", "fixed_us", "delta", "noise", "verdict"));
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "  %-18s %7d %-7s %11s %11s %9s %7s  %s%n", r.fix(), r.tokens(), r.replay().launch(),
                    r.measured() ? String.format(Locale.ROOT, "%.1f", r.baselineUs()) : "-", r.measured() ? String.format(Locale.ROOT, "%.1f", r.fixedUs()) : "-",
                    r.measured() ? String.format(Locale.ROOT, "%+.1f%%", r.deltaPercent()) : "-",
                    r.measured() && Double.isFinite(r.noise()) ? String.format(Locale.ROOT, "%.1f%%", 100 * r.noise()) : "-",
                    r.describe() + (r.caveat().isEmpty() ? "" : "; " + r.caveat())));
        }
        for (PythonRun p : processes) {
            sb.append(String.format(Locale.ROOT, "  process %d pid %d: %s, %s, %.1f s%n", p.index(), p.pid(), p.ok() ? "OK" : "FAILED: " + p.reason(), p.clocks(), p.seconds()));
        }
        flags.forEach(f -> sb.append("  flag: ").append(f).append('\n'));
        return sb.toString();
    }

    public void save(java.nio.file.Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static ModelConfirmResult load(java.nio.file.Path file) { return gluelab.workflow.experiment.StepResults.load(file, ModelConfirmResult.class, FORMAT); }
}
