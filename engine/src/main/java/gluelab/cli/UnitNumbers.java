package gluelab.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;

/**
 * Option values that are numbers in the option's own unit, written with or without it: a
 * percentage as {@code 0.5} or {@code 0.5%}, a bandwidth in GB/s as {@code 4272}, {@code 4272GB/s}
 * or {@code 4.8TB/s}. Any other unit is refused naming the one wanted. picocli prefixes the
 * message with the option's name ("Invalid value for option '--bound': ...").
 */
final class UnitNumbers {
    private UnitNumbers() {}

    /** A percentage, {@code 2} or {@code 2%}; the value is in percent. */
    static final class Percent implements ITypeConverter<Double> {
        @Override public Double convert(String text) {
            String t = text.strip();
            if (t.endsWith("%")) t = t.substring(0, t.length() - 1).strip();
            return finite(number(t, text, "a percentage such as 2 or 2%"), text);
        }
    }

    /** A bandwidth in GB/s, {@code 4272}, {@code 4272GB/s} or {@code 4.8TB/s}; the value is in GB/s. */
    static final class GbPerSecond implements ITypeConverter<Double> {
        /** Above any memory's bandwidth and below any that could be measured; outside, a typo. */
        static final double MIN = 1e-3, MAX = 1e6;

        @Override public Double convert(String text) {
            String t = text.strip().replace(" ", "");
            String unit = t.length() > 4 ? t.substring(t.length() - 4).toLowerCase(Locale.ROOT) : "";
            double scale = switch (unit) {
                case "tb/s" -> 1e3;
                case "gb/s" -> 1;
                case "mb/s" -> 1e-3;
                default -> 0;
            };
            if (scale > 0) t = t.substring(0, t.length() - 4);
            else scale = 1;
            String wanted = "a bandwidth in GB/s such as 4272, 4272GB/s or 4.27TB/s";
            double gbs = finite(number(t, text, wanted), text) * scale;
            if (!(gbs >= MIN && gbs <= MAX)) {
                throw new TypeConversionException("'" + text + "' is out of range: a bandwidth must be " + MIN + " to " + (long) MAX + " GB/s");
            }
            return gbs;
        }
    }

    private static double number(String digits, String text, String wanted) {
        try {
            return Double.parseDouble(digits);
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + text + "' is not " + wanted);
        }
    }

    private static double finite(double v, String text) {
        if (Double.isNaN(v)) throw new TypeConversionException("'" + text + "' is not a finite number");
        if (Double.isInfinite(v)) throw new TypeConversionException("'" + text + "' is too large");
        return v;
    }
}
