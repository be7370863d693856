package gluelab.workflow.confirm;

import gluelab.ops.Replay;

/**
 * One row of a confirmed comparison: normal launch or CUDA-graph replay of the whole forward +
 * backward step. Each side's time is the median of the processes within {@link Confirmation#WITHIN}
 * of the best process, with how many that was of how many finished. A row the device cannot
 * produce (graphs on the CPU) carries the reason instead of times.
 */
public record ConfirmedRow(Comparison comparison, Replay replay, double baselineUs, int baselineN, double candidateUs, int candidateN,
                           int processesOk, double idealUs, String skipped) {
    public ConfirmedRow {
        skipped = skipped == null ? "" : skipped;
    }

    static ConfirmedRow skipped(Comparison c, Replay replay, String reason) {
        return new ConfirmedRow(c, replay, Double.NaN, 0, Double.NaN, 0, 0, Double.NaN, reason);
    }

    public boolean measured() { return skipped.isEmpty() && baselineN > 0 && candidateN > 0; }

    /** Candidate vs baseline in percent (negative = faster). */
    public double deltaPercent() { return measured() ? 100 * (candidateUs / baselineUs - 1) : Double.NaN; }

    /** A win: the candidate at least {@link Confirmation#WITHIN} faster. */
    public boolean win() { return measured() && candidateUs < baselineUs * (1 - Confirmation.WITHIN); }

    /** "1.83x faster (120.4 vs 220.3 us)", direction and both numbers. */
    public String describe() {
        if (!skipped.isEmpty()) return "skipped: " + skipped;
        if (!measured()) return "not measured: no process finished";
        double r = baselineUs / candidateUs;
        String dir = r >= 1 ? String.format(java.util.Locale.ROOT, "%.2fx faster", r) : String.format(java.util.Locale.ROOT, "%.2fx slower", 1 / r);
        return String.format(java.util.Locale.ROOT, "%s (%.1f vs %.1f us; n %d and %d of %d processes)", dir, candidateUs, baselineUs, candidateN, baselineN, processesOk);
    }
}
