package gluelab.table;

/**
 * What a column's values are, and so how every format writes them. Times and byte counts are given
 * in their base unit (us, bytes) and scaled per column ({@code ideal (ms)}, {@code peak_mem (MiB)});
 * the others keep the unit their name says ({@code pct_of_floor}, {@code GB_per_s}).
 */
public enum Unit {
    /** Words: an op, a pass, a state. */
    TEXT("", false),
    /** A whole number: tokens, samples, kernels. */
    COUNT("", false),
    /** A time in us, written in us / ms / s per column. */
    TIME("us", true),
    /** A byte count, written in B / KiB / MiB / GiB per column. */
    BYTES("bytes", true),
    /** A percentage (already x100). */
    PERCENT("%", false),
    /** A ratio such as a speedup. */
    RATIO("x", false),
    /** A bandwidth in GB/s (10^9 bytes). */
    GB_PER_S("GB/s", false),
    /** A plain number (a rel L2, an ulp count, a score). */
    NUMBER("", false),
    /** An instant, written to the second in UTC. */
    TIMESTAMP("UTC", false),
    /**
     * A caveat on the row (noisy, too few samples, timed out, not confirmed), empty when the row is
     * sound. Shown first when any row has one, so a wide table never hides it.
     */
    CAVEAT("", false);

    private final String base;
    private final boolean scaled;

    Unit(String base, boolean scaled) {
        this.base = base;
        this.scaled = scaled;
    }

    /** The unit values are given in ("us", "bytes"); what a CSV header names. */
    public String base() { return base; }

    /** True when each column picks its own display unit from its values. */
    public boolean scaled() { return scaled; }
}
