package gluelab.trace;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A unit as Nsight Compute prints it in a CSV ("Metric Unit" column or the raw page's units row):
 * base units ({@code ns}, {@code byte}, {@code hz}, {@code cycle}, {@code %}) or, with the default
 * {@code --print-units auto}, scaled ones ({@code usecond}, {@code Mbyte}, {@code KiB},
 * {@code Gbyte/second}, {@code Ghz}, {@code cycle/nsecond}). {@link #toBase} converts a value to
 * nanoseconds, bytes, bytes per second, hertz, percent or plain counts; an unknown unit is refused by
 * name rather than read as 1.
 */
public record NcuUnit(String text, Dimension dimension, double toBase) {
    public enum Dimension { TIME_NS, BYTES, BYTES_PER_SECOND, HERTZ, PERCENT, COUNT, COUNT_PER_SECOND }

    /** A missing unit: a plain number, kept as it is. */
    public static final NcuUnit NONE = new NcuUnit("", Dimension.COUNT, 1);

    private static final Map<String, Double> TIME_PREFIX = Map.of("n", 1.0, "u", 1e3, "m", 1e6, "", 1e9);
    private static final Map<String, Double> DECIMAL = Map.of("", 1.0, "K", 1e3, "k", 1e3, "M", 1e6, "G", 1e9, "T", 1e12, "P", 1e15);
    private static final Map<String, Double> BINARY = Map.of("Ki", 0x1p10, "Mi", 0x1p20, "Gi", 0x1p30, "Ti", 0x1p40, "Pi", 0x1p50);
    /** Things ncu counts ({@code ncu --query-metrics} lists them as units). */
    private static final Set<String> COUNTS = Set.of("cycle", "inst", "warp", "block", "thread", "register", "sector", "request",
            "pass", "SM", "cluster", "tag", "branches", "ops", "instance", "wavefront", "transaction", "sample", "packet", "frame");

    public double convert(double value) {
        return value * toBase;
    }

    /** Parses a unit; {@code IllegalArgumentException} naming the unit when ncu has no such unit. */
    public static NcuUnit parse(String text) {
        String t = text.strip();
        if (t.isEmpty()) return NONE;
        if (t.equals("%")) return new NcuUnit(t, Dimension.PERCENT, 1);
        int slash = t.indexOf('/');
        if (slash < 0) {
            Atom a = atom(t);
            if (a == null) throw unknown(text);
            return new NcuUnit(t, a.dimension, a.factor);
        }
        Atom num = atom(t.substring(0, slash)), den = atom(t.substring(slash + 1));
        if (num == null || den == null || den.dimension == Dimension.PERCENT) throw unknown(text);
        if (den.dimension == Dimension.TIME_NS) {
            double perSecond = num.factor / (den.factor / 1e9);
            return switch (num.dimension) {
                case BYTES -> new NcuUnit(t, Dimension.BYTES_PER_SECOND, perSecond);
                case COUNT -> new NcuUnit(t, num.word.equals("cycle") ? Dimension.HERTZ : Dimension.COUNT_PER_SECOND, perSecond);
                default -> throw unknown(text);
            };
        }
        // byte/block, register/thread, inst/warp: a ratio of counts
        if (num.dimension == Dimension.TIME_NS || num.dimension == Dimension.HERTZ) throw unknown(text);
        return new NcuUnit(t, Dimension.COUNT, num.factor / den.factor);
    }

    private record Atom(String word, Dimension dimension, double factor) {}

    private static Atom atom(String s) {
        switch (s) {
            case "ns" -> { return new Atom("second", Dimension.TIME_NS, 1); }
            case "us" -> { return new Atom("second", Dimension.TIME_NS, 1e3); }
            case "ms" -> { return new Atom("second", Dimension.TIME_NS, 1e6); }
            case "s" -> { return new Atom("second", Dimension.TIME_NS, 1e9); }
            case "B" -> { return new Atom("byte", Dimension.BYTES, 1); }
            default -> { }
        }
        if (s.endsWith("second")) {
            Double f = TIME_PREFIX.get(s.substring(0, s.length() - "second".length()));
            return f == null ? null : new Atom("second", Dimension.TIME_NS, f);
        }
        if (s.endsWith("iB")) {
            Double f = BINARY.get(s.substring(0, s.length() - 1));
            return f == null ? null : new Atom("byte", Dimension.BYTES, f);
        }
        if (s.endsWith("byte")) {
            Double f = DECIMAL.get(s.substring(0, s.length() - "byte".length()));
            return f == null ? null : new Atom("byte", Dimension.BYTES, f);
        }
        if (s.length() <= 3 && s.endsWith("B")) { // KB, MB, GB; a lower-case b would be bits, which ncu never prints
            Double f = DECIMAL.get(s.substring(0, s.length() - 1));
            return f == null ? null : new Atom("byte", Dimension.BYTES, f);
        }
        if (s.toLowerCase(Locale.ROOT).endsWith("hz")) {
            Double f = DECIMAL.get(s.substring(0, s.length() - 2));
            return f == null ? null : new Atom("hz", Dimension.HERTZ, f);
        }
        if (COUNTS.contains(s)) return new Atom(s, Dimension.COUNT, 1);
        for (var p : DECIMAL.entrySet()) {
            if (!p.getKey().isEmpty() && s.startsWith(p.getKey()) && COUNTS.contains(s.substring(p.getKey().length())))
                return new Atom(s.substring(p.getKey().length()), Dimension.COUNT, p.getValue());
        }
        return null;
    }

    private static IllegalArgumentException unknown(String text) {
        return new IllegalArgumentException("unknown unit '" + text + "' (known: time ns/usecond/msecond/second, bytes byte/Kbyte/KiB/..., "
                + "rates byte/second/Gbyte/second, hz/Ghz, cycle/nsecond, %, counts " + String.join("/", new java.util.TreeSet<>(COUNTS)) + ")");
    }
}
