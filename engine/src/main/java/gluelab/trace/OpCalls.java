package gluelab.trace;

import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;

import java.util.*;

/**
 * Every CPU op's calls and total (inclusive) time per name, counted as torch's {@code key_averages()}
 * counts them: an op whose only child op has its own name (an overload dispatching to another, e.g.
 * {@code aten::div_} inside {@code aten::div_}) is one call, the parent's. The nesting needs the
 * ops' ranges per thread, so each op is kept as four numbers until {@link #finish}: it grows with the
 * CPU ops of the trace (a GPU trace's launches are not kept).
 */
final class OpCalls {
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<String> names = new ArrayList<>();
    private final IntArrayList name = new IntArrayList();
    private final LongArrayList thread = new LongArrayList();
    private final DoubleArrayList start = new DoubleArrayList(), dur = new DoubleArrayList();
    /** Durations are written to the nanosecond; a child ending with its parent may read a rounding later. */
    private static final double SLACK_US = 5e-4;

    void add(String op, long tid, double ts, double d) {
        Integer id = ids.get(op);
        if (id == null) {
            id = names.size();
            ids.put(op, id);
            names.add(op);
        }
        name.add((int) id);
        thread.add(tid);
        start.add(ts);
        dur.add(d);
    }

    List<Trace.CpuOpTime> finish() {
        int n = name.size();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, Comparator.<Integer>comparingLong(thread::getLong).thenComparingDouble(start::getDouble)
                .thenComparing(Comparator.<Integer>comparingDouble(dur::getDouble).reversed()));
        int[] parent = new int[n], children = new int[n];
        Arrays.fill(parent, -1);
        Deque<Integer> open = new ArrayDeque<>();
        long openThread = Long.MIN_VALUE;
        for (int i : order) {
            if (thread.getLong(i) != openThread) {
                open.clear();
                openThread = thread.getLong(i);
            }
            double s = start.getDouble(i), e = s + dur.getDouble(i);
            while (!open.isEmpty() && !(s >= start.getDouble(open.peek()) && e <= start.getDouble(open.peek()) + dur.getDouble(open.peek()) + SLACK_US)) open.pop();
            if (!open.isEmpty()) {
                parent[i] = open.peek();
                children[open.peek()]++;
            }
            open.push(i);
        }
        double[][] totals = new double[names.size()][2];
        for (int i = 0; i < n; i++) {
            int p = parent[i];
            if (p >= 0 && name.getInt(p) == name.getInt(i) && children[p] == 1) continue;
            totals[name.getInt(i)][0]++;
            totals[name.getInt(i)][1] += dur.getDouble(i);
        }
        List<Trace.CpuOpTime> out = new ArrayList<>(names.size());
        for (int id = 0; id < names.size(); id++) out.add(new Trace.CpuOpTime(names.get(id), (int) totals[id][0], totals[id][1]));
        return out;
    }
}
