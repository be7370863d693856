package gluelab.units;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/** Rounding for what people read: tables, findings, devlog lines. */
public final class Numbers {
    private Numbers() {}

    /** {@code v} rounded to {@code digits} significant digits (0.000000055594105 -> 5.56E-8 with 3); NaN and infinities pass. */
    public static double significant(double v, int digits) {
        if (!Double.isFinite(v) || v == 0) return v;
        return new BigDecimal(v).round(new MathContext(digits)).doubleValue();
    }

    /** {@code v} rounded to {@code places} decimals; NaN and infinities pass. */
    public static double places(double v, int places) {
        if (!Double.isFinite(v)) return v;
        double f = Math.pow(10, places);
        return Math.round(v * f) / f;
    }

    /** A fraction as a percentage with two significant digits at least one decimal: 0.005 -> "0.50%", 0.1234 -> "12.3%". */
    public static String percent(double fraction) {
        double p = 100 * fraction;
        if (!Double.isFinite(p)) return p + "%";
        return (Math.abs(p) >= 10 ? String.format(Locale.ROOT, "%.1f", p) : String.format(Locale.ROOT, "%.2f", p)) + "%";
    }
}
