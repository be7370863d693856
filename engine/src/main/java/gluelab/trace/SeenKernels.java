package gluelab.trace;

/**
 * The kernel events a trace has shown, as 64-bit fingerprints of name, start, duration and
 * External id in an open-addressing table (8 bytes a launch): a trace whose every kernel event
 * appears twice (two exports concatenated, a tool that repeated them) doubled every total.
 */
final class SeenKernels {
    private long[] table = new long[1 << 12];
    private int size;

    /** True the first time this event is seen; false for an exact repeat. */
    boolean firstTime(String name, double ts, double dur, long externalId) {
        long h = name.hashCode();
        h = h * 0x9E3779B97F4A7C15L + Double.doubleToLongBits(ts);
        h = h * 0x9E3779B97F4A7C15L + Double.doubleToLongBits(dur);
        h = h * 0x9E3779B97F4A7C15L + externalId;
        h ^= h >>> 29;
        if (h == 0) h = 1; // 0 marks an empty slot
        if (2 * (size + 1) > table.length) grow();
        return insert(table, h);
    }

    private boolean insert(long[] t, long h) {
        int mask = t.length - 1;
        for (int i = (int) (h ^ (h >>> 32)) & mask; ; i = (i + 1) & mask) {
            if (t[i] == h) return false;
            if (t[i] == 0) {
                t[i] = h;
                if (t == table) size++;
                return true;
            }
        }
    }

    private void grow() {
        long[] old = table;
        table = new long[old.length * 2];
        for (long h : old) if (h != 0) insert(table, h);
    }
}
