package gluelab.kernel.display;

import java.math.BigDecimal;
import java.math.MathContext;

/** DisplayNumbers as a reader wants them: four significant digits, no float noise, scientific only when tiny or huge. */
public final class DisplayNumbers {
    private DisplayNumbers() {}

    public static String format(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return Double.toString(v);
        if (v == 0) return "0";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        double a = Math.abs(v);
        if (a >= 1e-3 && a < 1e7) {
            BigDecimal d = new BigDecimal(v).round(new MathContext(a >= 1e4 ? 7 : 4));
            if (a >= 1e4) d = d.setScale(0, java.math.RoundingMode.HALF_EVEN);
            return d.stripTrailingZeros().toPlainString();
        }
        return String.format("%.3e", v);
    }

    /** Any boxed number: integers as they are, floating point rounded. */
    public static String format(Number n) {
        return n instanceof Double || n instanceof Float || n instanceof BigDecimal ? format(n.doubleValue()) : n.toString();
    }
}
