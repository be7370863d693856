package gluelab.trace;

/**
 * GPU busy time and idle gaps over the union of GPU spans (kernels, copies, sets), as a running
 * statistic. The sweep needs the spans by start time; a profiler writes them nearly in that order
 * (each stream in order, streams interleaved), so a bounded reorder window (a min-heap of
 * {@link #WINDOW} spans) puts them in order and memory stays flat however long the trace. A span
 * that starts before one already swept (out of order by more than the window) is still added, and
 * counted in {@link Result#late()} so the summary can say its idle figures are approximate.
 */
final class GpuIdle {
    static final int WINDOW = 1 << 16;

    /** What the sweep found; {@code late} spans came too far out of order to be placed exactly. */
    record Result(double busyUs, double windowUs, double idleUs, int gapsOver10us, double largestGapUs, long late) {}

    private final int window;
    // the reorder window: a binary min-heap on (start, order) in three parallel arrays
    private double[] starts = new double[1024], ends = new double[1024];
    private long[] orders = new long[1024];
    private int size;
    private long arrivals;

    // the sweep over spans in start order
    private double busy, idle, largest, end = Double.NaN, start = Double.NaN, sweptStart = Double.NEGATIVE_INFINITY;
    private long sweptOrder = Long.MIN_VALUE, late;
    private int gaps;

    GpuIdle() { this(WINDOW); }

    GpuIdle(int window) { this.window = window; }

    /**
     * One span. Kernels sort before copies and sets that start at the same time, and each kind keeps
     * its file order: the order a stable sort of all kernels, then all copies, gives.
     */
    void add(double ts, double endTs, boolean copyOrSet) {
        long order = (copyOrSet ? 1L << 62 : 0) | arrivals++;
        if (size == starts.length) grow();
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(ts, order, starts[parent], orders[parent])) break;
            move(parent, i);
            i = parent;
        }
        set(i, ts, endTs, order);
        if (size > window) sweepFirst();
    }

    Result finish() {
        while (size > 0) sweepFirst();
        double windowUs = Double.isNaN(end) ? 0 : end - start;
        return new Result(busy, windowUs, idle, gaps, largest, late);
    }

    private static boolean before(double ts, long order, double otherTs, long otherOrder) {
        return ts < otherTs || ts == otherTs && order < otherOrder;
    }

    private void sweepFirst() {
        double s = starts[0], e = ends[0];
        long order = orders[0];
        size--;
        if (size > 0) siftDown(starts[size], ends[size], orders[size]);
        if (before(s, order, sweptStart, sweptOrder)) late++;
        sweptStart = s;
        sweptOrder = order;
        if (Double.isNaN(end)) {
            start = s;
            end = e;
            busy += e - s;
        } else if (s > end) {
            double gap = s - end;
            idle += gap;
            largest = Math.max(largest, gap);
            if (gap > 10) gaps++;
            busy += e - s;
            end = e;
        } else if (e > end) {
            busy += e - end;
            end = e;
        }
    }

    private void siftDown(double ts, double endTs, long order) {
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) break;
            if (child + 1 < size && before(starts[child + 1], orders[child + 1], starts[child], orders[child])) child++;
            if (!before(starts[child], orders[child], ts, order)) break;
            move(child, i);
            i = child;
        }
        set(i, ts, endTs, order);
    }

    private void move(int from, int to) { set(to, starts[from], ends[from], orders[from]); }

    private void set(int i, double ts, double endTs, long order) {
        starts[i] = ts;
        ends[i] = endTs;
        orders[i] = order;
    }

    private void grow() {
        int n = starts.length * 2;
        starts = java.util.Arrays.copyOf(starts, n);
        ends = java.util.Arrays.copyOf(ends, n);
        orders = java.util.Arrays.copyOf(orders, n);
    }
}
