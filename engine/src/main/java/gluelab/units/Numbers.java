package gluelab.units;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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

    /** What a table or line shows for a number that is missing, NaN or infinite. */
    public static final String ABSENT = "-";

    /** No decimals from 1000 up, one from 1 up, three below (by magnitude): 1089, 75.1, 0.531; "-" for NaN or infinite. */
    public static String readable(double v) {
        if (!Double.isFinite(v)) return ABSENT;
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 1000 ? "%.0f" : a >= 1 ? "%.1f" : "%.3f", v);
    }

    /** {@code v} rounded as {@link #readable} writes it, as a number for a table cell; NaN and infinities become NaN (an empty cell). */
    public static double readableValue(double v) {
        if (!Double.isFinite(v)) return Double.NaN;
        double a = Math.abs(v);
        return places(v, a >= 1000 ? 0 : a >= 1 ? 1 : 3);
    }

    /** A byte count in binary units, three significant digits from KiB up: 512 B, 1.50 KiB, 4.50 GiB (4831838208). */
    public static String bytes(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("a byte count must be >= 0, got " + bytes);
        return ByteScale.forMax(bytes).format(bytes);
    }

    /** A count with its noun, singular for one: {@code count(1, "token count")} is "1 token count", {@code count(2, "token count")} "2 token counts". */
    public static String count(long n, String noun) { return count(n, noun, noun + "s"); }

    /** As {@link #count(long, String)}, for a noun whose plural is not the singular with an s ("1 fix", "2 fixes"). */
    public static String count(long n, String singular, String plural) { return n + " " + (n == 1 ? singular : plural); }

    /** An instant to the second, in UTC: 2026-12-01T22:49:40Z (no nanoseconds). */
    public static String timestamp(Instant at) { return at.truncatedTo(ChronoUnit.SECONDS).toString(); }
}
