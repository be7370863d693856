package gluelab.units;

/**
 * The unit a group of times is written in for people: us below 10 ms, ms below 10 s, s above. Chosen
 * once per group (a table column, a summary line, a before -> after pair) from its largest value,
 * so the numbers beside each other share one unit: never {@code 157.2 -> 12.4 ms} beside
 * {@code 9745 -> 1216 us}, never {@code 1379664.1 us}.
 */
public enum TimeScale implements ColumnScale {
    US("us", 1), MS("ms", 1e3), S("s", 1e6);

    private final String symbol;
    private final double us;

    TimeScale(String symbol, double us) {
        this.symbol = symbol;
        this.us = us;
    }

    /** "us", "ms", "s". */
    public String symbol() { return symbol; }

    /** The scale for a group whose largest time is {@code maxUs}; NaN, infinite or negative values count as absent (us). */
    public static TimeScale forMax(double maxUs) {
        if (!(maxUs >= 0) || Double.isInfinite(maxUs)) return US;
        return maxUs >= 10e6 ? S : maxUs >= 10e3 ? MS : US;
    }

    /** The scale for these times (or differences of times) in us: the largest finite magnitude decides; none finite gives us. */
    public static TimeScale of(double... us) {
        double max = Double.NaN;
        for (double v : us) if (Double.isFinite(v) && !(Math.abs(v) <= max)) max = Math.abs(v);
        return forMax(max);
    }

    /** {@code us} in this scale. */
    public double scale(double us) { return us / this.us; }

    /**
     * The number alone in this scale ("1089", "75.1", "0.531"), "-" for NaN or infinite; in ms and s
     * a value below 10 keeps two decimals (1.22 ms) so a smaller neighbour of a larger one keeps its digits.
     */
    public String number(double us) {
        double v = scale(us);
        if (this != US && Double.isFinite(v) && Math.abs(v) >= 1 && Math.abs(v) < 10) return String.format(java.util.Locale.ROOT, "%.2f", v);
        return Numbers.readable(v);
    }

    /** With the unit: "75.1 us", "240.1 ms", "1380 s" ... "-" for NaN or infinite. */
    public String format(double us) {
        return Double.isFinite(us) ? number(us) + " " + symbol : Numbers.ABSENT;
    }

    /** A table cell: {@code us} in this scale, rounded as {@link Numbers#readable}; NaN (an empty cell) for NaN or infinite. */
    public double cell(double us) {
        double v = scale(us);
        if (this != US && Double.isFinite(v) && Math.abs(v) >= 1 && Math.abs(v) < 10) return Numbers.places(v, 2);
        return Numbers.readableValue(v);
    }

    /** A column header with this unit: {@code header("median")} is "median (ms)". */
    public String header(String name) { return name + " (" + symbol + ")"; }

    @Override public String toString() { return symbol; }
}
