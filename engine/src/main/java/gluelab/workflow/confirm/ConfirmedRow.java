package gluelab.workflow.confirm;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import gluelab.ops.Replay;
import gluelab.ops.Skip;
import gluelab.timing.Noise;

/**
 * One row of a confirmed comparison: normal launch or CUDA-graph replay of the whole forward +
 * backward step. Each side's time is the median of the processes within {@link Confirmation#WITHIN}
 * of the best process, with how many that was of how many finished. A row the device cannot
 * produce (graphs on the CPU) carries a {@link Skip} instead of times; in JSON its reason under
 * {@code skipped} ("" for a measured row), as confirm results have always held it.
 */
public record ConfirmedRow(Comparison comparison, Replay replay, double baselineUs, int baselineN, double candidateUs, int candidateN,
                           int processesOk, double idealUs,
                           @JsonProperty("skipped") @JsonSerialize(converter = Skip.AsReason.class, nullsUsing = Skip.NoneAsEmpty.class)
                           @JsonDeserialize(converter = Skip.FromReason.class) Skip skip, Double noise) {
    public ConfirmedRow {
        if (skip != null) skip = skip.about(subject(comparison, replay));
        if (noise == null) noise = Double.NaN;
    }

    /** A row whose noise is not known ({@code noise}: the relative noise its difference must clear, {@link Noise#of}). */
    public ConfirmedRow(Comparison comparison, Replay replay, double baselineUs, int baselineN, double candidateUs, int candidateN, int processesOk, double idealUs, Skip skip) {
        this(comparison, replay, baselineUs, baselineN, candidateUs, candidateN, processesOk, idealUs, skip, Double.NaN);
    }

    private static String subject(Comparison c, Replay replay) {
        String r = replay == null ? "?" : replay.id();
        return c == null ? "confirmed row " + r : c.op() + " at " + c.tokens() + " tokens, " + r;
    }

    static ConfirmedRow skipped(Comparison c, Replay replay, String reason) {
        return new ConfirmedRow(c, replay, Double.NaN, 0, Double.NaN, 0, 0, Double.NaN, new Skip(subject(c, replay), reason));
    }

    public boolean measured() { return skip == null && baselineN > 0 && candidateN > 0; }

    /** Candidate vs baseline in percent (negative = faster). */
    public double deltaPercent() { return measured() ? 100 * (candidateUs / baselineUs - 1) : Double.NaN; }

    /** Its difference is inside its noise ({@link Noise#within}): neither a win nor a loss. */
    public boolean inconclusive() { return measured() && Noise.within(candidateUs / baselineUs - 1, noise); }

    /** "inconclusive: -3.2% is within the noise (8.1%)" when its difference is inside the noise, else "". */
    public String noiseVerdict() { return inconclusive() ? Noise.caveat(candidateUs / baselineUs - 1, noise) : ""; }

    /** A win: the candidate at least {@link Confirmation#WITHIN} faster, and outside its noise. */
    public boolean win() { return measured() && candidateUs < baselineUs * (1 - Confirmation.WITHIN) && !inconclusive(); }

    /** "1.83x faster (120.4 vs 220.3 us)", direction and both numbers. */
    public String describe() {
        if (skip != null) return "skipped: " + skip.reason();
        if (!measured()) return "not measured: no process finished";
        double r = baselineUs / candidateUs;
        String dir = r >= 1 ? String.format(java.util.Locale.ROOT, "%.2fx faster", r) : String.format(java.util.Locale.ROOT, "%.2fx slower", 1 / r);
        return (inconclusive() ? noiseVerdict() + "; " : "") + String.format(java.util.Locale.ROOT, "%s (%.1f vs %.1f us; n %d and %d of %d processes)", dir, candidateUs, baselineUs, candidateN, baselineN, processesOk);
    }
}
