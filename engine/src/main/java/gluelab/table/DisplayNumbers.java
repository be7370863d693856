package gluelab.table;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** Numbers as a reader wants them in a cell: no float noise, four significant digits for a raw double, scientific only when tiny or huge. */
public final class DisplayNumbers {
    private DisplayNumbers() {}

    public static String format(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return Double.toString(v);
        if (v == 0) return "0";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        double a = Math.abs(v);
        if (a >= 1e-3 && a < 1e7) {
            BigDecimal d = new BigDecimal(v).round(new MathContext(a >= 1e4 ? 7 : 4));
            if (a >= 1e4) d = d.setScale(0, RoundingMode.HALF_EVEN);
            return d.stripTrailingZeros().toPlainString();
        }
        return String.format("%.3e", v);
    }

    /** Any boxed number: integers as they are, floating point rounded. */
    public static String format(Number n) {
        return n instanceof Double || n instanceof Float || n instanceof BigDecimal ? format(n.doubleValue()) : n.toString();
    }

    /**
     * A table cell: a value a table already rounded (150.66, 0.112, 3603) as it is, a raw double
     * ({@code 0.1 + 0.2}, {@code Math.PI}) as {@link #format(double)} writes it.
     */
    public static String cell(double v) {
        if (!Double.isFinite(v)) return Double.toString(v);
        BigDecimal shortest = BigDecimal.valueOf(v).stripTrailingZeros();
        if (shortest.precision() <= 6 && Math.abs(v) < 1e15) return shortest.toPlainString();
        return format(v);
    }
}
