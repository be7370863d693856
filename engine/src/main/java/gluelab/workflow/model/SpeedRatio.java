package gluelab.workflow.model;

import gluelab.timing.Noise;

import java.util.Locale;

/**
 * A ratio of two times as people read it: its direction and its two sides, "3.98x faster (per-block vs
 * eager)" or "1.20x slower (whole vs eager)", never a bare "0.84x" that leaves the reader to guess which
 * side was divided by which; a difference within the noise of the two sides is inconclusive by the
 * project's one rule ({@link Noise}), as steps 05 and 07 read it, not "1.00x faster".
 */
final class SpeedRatio {
    private SpeedRatio() {}

    /**
     * {@code side} (median {@code sideUs}, relative noise {@code sideNoise}) against {@code base} (median {@code baseUs}, noise
     * {@code baseNoise}); both must be measured. "inconclusive: -0.5% is within the noise (2.6%) (regions vs eager)" when the
     * difference is inside the larger noise.
     */
    static String of(double baseUs, double baseNoise, double sideUs, double sideNoise, String side, String base) {
        if (!(baseUs > 0 && sideUs > 0)) throw new IllegalArgumentException("a ratio needs two measured times, got " + sideUs + " us (" + side + ") vs " + baseUs + " us (" + base + ")");
        double r = baseUs / sideUs;
        String sides = " (" + side + " vs " + base + ")";
        double change = sideUs / baseUs - 1, noise = Noise.of(baseNoise, sideNoise);
        if (Noise.within(change, noise)) return Noise.caveat(change, noise) + sides;
        return r >= 1 ? String.format(Locale.ROOT, "%.2fx faster", r) + sides : String.format(Locale.ROOT, "%.2fx slower", 1 / r) + sides;
    }
}
