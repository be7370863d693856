package gluelab.workflow.model;

import java.util.Locale;

/**
 * A ratio of two times as people read it: its direction and its two sides, "3.98x faster (per-block vs
 * eager)" or "1.20x slower (whole vs eager)", never a bare "0.84x" that leaves the reader to guess which
 * side was divided by which.
 */
final class SpeedRatio {
    private SpeedRatio() {}

    /** {@code side} (median {@code sideUs}) against {@code base} (median {@code baseUs}); both must be measured. */
    static String of(double baseUs, double sideUs, String side, String base) {
        if (!(baseUs > 0 && sideUs > 0)) throw new IllegalArgumentException("a ratio needs two measured times, got " + sideUs + " us (" + side + ") vs " + baseUs + " us (" + base + ")");
        double r = baseUs / sideUs;
        String sides = " (" + side + " vs " + base + ")";
        return r >= 1 ? String.format(Locale.ROOT, "%.2fx faster", r) + sides : String.format(Locale.ROOT, "%.2fx slower", 1 / r) + sides;
    }
}
