package gluelab.timing;

import java.util.Locale;

/**
 * The one rule for what a difference between two timings says: a change no larger than the noise of
 * the numbers behind it is inconclusive, neither a win nor a loss. Step 05's screen and step 07's
 * confirmation judge by it, and every text that carries such a difference words it with {@link #caveat}.
 */
public final class Noise {
    /** The word an inconclusive difference is read by, wherever it travels (tables, stack, findings, PR text, feedback). */
    public static final String INCONCLUSIVE = "inconclusive";
    public static final String WITHIN = "within the noise";

    private Noise() {}

    /** The noise a comparison's difference must clear: the larger relative noise of its two sides; NaN when either is unknown. */
    public static double of(double a, double b) { return Math.max(a, b); }

    /** Whether {@code change} (after / before - 1) is inside {@code noise}; an unknown noise (NaN) decides nothing. */
    public static boolean within(double change, double noise) {
        return Double.isFinite(change) && noise >= 0 && Math.abs(change) <= noise;
    }

    /** "inconclusive: -3.2% is within the noise (8.1%)". */
    public static String caveat(double change, double noise) {
        return String.format(Locale.ROOT, "%s: %+.1f%% is %s (%.1f%%)", INCONCLUSIVE, 100 * change, WITHIN, 100 * noise);
    }
}
