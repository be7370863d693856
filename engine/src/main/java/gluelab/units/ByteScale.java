package gluelab.units;

import java.util.Locale;

/**
 * The binary unit a group of byte counts is written in: B, KiB, MiB, GiB, TiB, chosen once per group
 * (a table column) from its largest value, as {@link TimeScale} does for times, so a column reads
 * {@code 64}, {@code 32}, {@code 1.50} MiB, never {@code 67108864}.
 */
public enum ByteScale implements ColumnScale {
    B("B", 1), KIB("KiB", 1L << 10), MIB("MiB", 1L << 20), GIB("GiB", 1L << 30), TIB("TiB", 1L << 40);

    private final String symbol;
    private final double bytes;

    ByteScale(String symbol, long bytes) {
        this.symbol = symbol;
        this.bytes = bytes;
    }

    public String symbol() { return symbol; }

    /** The largest unit in which {@code maxBytes} is at least 1; NaN, infinite or negative values count as absent (B). */
    public static ByteScale forMax(double maxBytes) {
        if (!(maxBytes >= 0) || Double.isInfinite(maxBytes)) return B;
        ByteScale out = B;
        for (ByteScale s : values()) if (maxBytes >= s.bytes * (1023.5 / 1024)) out = s;
        return out;
    }

    /** The scale for these byte counts: the largest finite one decides. */
    public static ByteScale of(double... bytes) {
        double max = Double.NaN;
        for (double v : bytes) if (Double.isFinite(v) && !(Math.abs(v) <= max)) max = Math.abs(v);
        return forMax(max);
    }

    public double scale(double bytes) { return bytes / this.bytes; }

    /**
     * A table cell: three significant digits from KiB up (whole from 100), so a small neighbour of a
     * large value keeps its digits (0.0625 GiB beside 6.02 GiB); bytes whole. NaN for NaN or infinite.
     */
    public double cell(double bytes) {
        if (!Double.isFinite(bytes)) return Double.NaN;
        double v = scale(bytes);
        if (this == B || Math.abs(v) >= 100) return Math.rint(v);
        return Numbers.significant(v, 3);
    }

    /** With the unit: "512 B", "1.50 KiB", "4.50 GiB"; "-" for NaN or infinite. */
    public String format(double bytes) {
        if (!Double.isFinite(bytes)) return Numbers.ABSENT;
        if (this == B) return String.format(Locale.ROOT, "%.0f B", bytes);
        double v = scale(bytes), a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%.0f %s" : a >= 10 ? "%.1f %s" : "%.2f %s", v, symbol);
    }

    /** A column header with this unit: {@code header("peak_mem")} is "peak_mem (MiB)". */
    public String header(String name) { return name + " (" + symbol + ")"; }

    @Override public String toString() { return symbol; }
}
