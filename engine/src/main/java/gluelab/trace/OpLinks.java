package gluelab.trace;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;

import java.util.*;

/**
 * Links kernels to the recorded-shape op that launched them (External id) while the trace streams
 * by, and sums them per op name and input shapes. Each op is turned into its bytes when it is read
 * and only an index to its (name, bytes) class is kept per External id: a profiler writes every CPU
 * op before the kernels that link to them, so the link has to wait, but it costs a map entry, not
 * the op. Kernels of one op come one after another; their time is summed per op first, then per row,
 * as a summary over kept launches would.
 */
final class OpLinks {
    private record OpClass(String name, ShapeFloors.Bytes bytes) {}

    private final Map<OpClass, Integer> classIndex = new HashMap<>();
    private final List<OpClass> classes = new ArrayList<>();
    /** External id to its op's class index, stored as {@code ~index} once a kernel linked to it. */
    private final Long2IntOpenHashMap classOf = new Long2IntOpenHashMap();
    private static final int NONE = Integer.MIN_VALUE;
    /** Rows by op name and shapes, in the order their first kernel came; several classes can share a row. */
    private final Map<String, Running> rows = new LinkedHashMap<>();
    private final List<Running> rowOfClass = new ArrayList<>();

    // the op whose kernels are arriving now
    private long openId = -1;
    private int openClass = -1, openKernels;
    private boolean openFirst;
    private double openUs;

    OpLinks() { classOf.defaultReturnValue(NONE); }

    private static final class Running {
        final String op, shapes;
        int instances, kernels;
        double measured;
        long bytes;
        String outputs;

        Running(String op, String shapes) {
            this.op = op;
            this.shapes = shapes;
        }
    }

    /** An op with recorded shapes; the first one with an External id owns it. */
    void op(Events.CpuOp op) {
        if (op.externalId() < 0 || classOf.containsKey(op.externalId())) return;
        OpClass c = new OpClass(op.name(), ShapeFloors.bytes(op));
        Integer index = classIndex.get(c);
        if (index == null) {
            index = classes.size();
            classes.add(c);
            classIndex.put(c, index);
            rowOfClass.add(null);
        }
        classOf.put(op.externalId(), (int) index);
    }

    /** A kernel; linked when an op with shapes and its External id came before it. */
    void kernel(long externalId, double dur) {
        if (externalId < 0) return;
        if (externalId != openId) {
            int c = classOf.get(externalId);
            if (c == NONE) return;
            close();
            openId = externalId;
            openClass = c < 0 ? ~c : c;
            openFirst = c >= 0;
            if (openFirst) classOf.put(externalId, ~c);
        }
        openUs += dur;
        openKernels++;
    }

    private void close() {
        if (openClass < 0) return;
        OpClass c = classes.get(openClass);
        Running r = rowOfClass.get(openClass);
        if (r == null) {
            r = rows.computeIfAbsent(c.name() + " " + c.bytes().shapes(), k -> new Running(c.name(), c.bytes().shapes()));
            rowOfClass.set(openClass, r);
        }
        if (openFirst) {
            r.instances++;
            r.bytes += c.bytes().total();
        }
        r.kernels += openKernels;
        r.measured += openUs;
        r.outputs = c.bytes().outputs();
        openClass = -1;
        openId = -1;
        openKernels = 0;
        openUs = 0;
    }

    List<ShapeFloors.OpTotal> finish() {
        close();
        List<ShapeFloors.OpTotal> out = new ArrayList<>();
        for (Running r : rows.values()) out.add(new ShapeFloors.OpTotal(r.op, r.shapes, r.instances, r.kernels, r.measured, r.bytes, r.outputs));
        return out;
    }
}
