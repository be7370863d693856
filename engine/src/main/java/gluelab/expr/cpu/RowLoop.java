package gluelab.expr.cpu;

import gluelab.backend.cpu.CpuParallel;
import gluelab.expr.Expr;
import gluelab.expr.Op;
import gluelab.expr.lower.Role;
import gluelab.expr.lower.RowPlan;
import gluelab.tensor.Tensor;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A region's fused loop on the CPU: rows split over the device's threads; per row every node is
 * computed in fp32 into a small array (the row lives in cache, as it lives in registers and shared
 * memory on a GPU); each input row is read once and each output row written once. Sums over rows
 * (weight gradients) go to per-chunk partials added in chunk order, so results do not depend on
 * the thread count.
 */
public final class RowLoop implements Runnable {
    private static final long CHUNK_ROWS = 64;

    private final RowPlan plan;
    private final CpuParallel parallel;
    private final Tensor[] tensors;
    private final boolean[] output;
    private final float[] scalars;
    private final long[][] strides;
    private final int[] lengths;
    private final List<Expr> nodes;
    private final Object[] locks;
    // Per node, looked up once: its role and its operands' positions (the row loop must not hash).
    private final Role[] roles;
    private final int[][] argIndex;
    private final long[] rowSizes;

    /**
     * @param bound a tensor for every input leaf and every output node
     * @param params parameter values by node (defaults where absent)
     */
    public RowLoop(RowPlan plan, Map<Expr, Tensor> bound, Map<Expr, Float> params, CpuParallel parallel) {
        this.plan = plan;
        this.parallel = parallel;
        this.nodes = plan.nodes();
        int n = nodes.size();
        tensors = new Tensor[n];
        output = new boolean[n];
        scalars = new float[n];
        strides = new long[n][];
        lengths = new int[n];
        rowSizes = plan.rowSpace().sizes();
        roles = new Role[n];
        argIndex = new int[n][];
        locks = new Object[256];
        for (int i = 0; i < locks.length; i++) locks[i] = new Object();
        Map<Expr, Boolean> isOut = new IdentityHashMap<>();
        for (Expr o : plan.region().outputs().values()) isOut.put(o, true);
        for (int i = 0; i < n; i++) {
            Expr e = nodes.get(i);
            roles[i] = plan.role(e);
            argIndex[i] = e.args().stream().mapToInt(plan::index).toArray();
            lengths[i] = plan.length(e);
            if (plan.role(e) != Role.SCALAR) strides[i] = plan.rowStrides(e);
            output[i] = isOut.containsKey(e);
            if (e.op() == Op.INPUT || output[i]) {
                tensors[i] = bound.get(e);
                if (tensors[i] == null) throw new IllegalArgumentException("no tensor bound for " + e.describe());
            }
            if (e.op() == Op.CONST) scalars[i] = (float) e.num();
            if (e.op() == Op.PARAM) scalars[i] = params.getOrDefault(e, (float) e.num());
        }
    }

    @Override public void run() {
        long rows = plan.rows();
        long chunks = (rows + CHUNK_ROWS - 1) / CHUNK_ROWS;
        List<Expr> acc = plan.accumulated();
        float[][][] partials = new float[acc.size()][][];
        for (int a = 0; a < acc.size(); a++) {
            partials[a] = accumulatesPerChunk(acc.get(a)) ? new float[(int) chunks][] : null;
        }
        float[][] shared = new float[acc.size()][];
        for (int a = 0; a < acc.size(); a++) if (partials[a] == null) shared[a] = new float[(int) acc.get(a).shape().elements()];
        parallel.chunks(rows, CHUNK_ROWS, (from, to) -> {
            float[][] v = new float[nodes.size()][];
            long[] lastBase = new long[nodes.size()];
            java.util.Arrays.fill(lastBase, -1);
            for (int i = 0; i < v.length; i++) {
                v[i] = new float[Math.max(1, lengths[i])];
                if (roles[i] == Role.SCALAR) v[i][0] = scalars[i];
            }
            int chunk = (int) (from / CHUNK_ROWS);
            for (int a = 0; a < acc.size(); a++) {
                if (partials[a] != null) partials[a][chunk] = new float[lengths[plan.index(acc.get(a))]];
            }
            long[] idx = new long[plan.rowSpace().rank()];
            for (long r = from; r < to; r++) {
                decompose(r, idx);
                row(v, idx, lastBase, acc, partials, shared, chunk);
            }
        });
        for (int a = 0; a < acc.size(); a++) {
            Expr e = acc.get(a);
            Tensor t = tensors[plan.index(e)];
            if (partials[a] != null) {
                float[] sum = new float[lengths[plan.index(e)]];
                for (float[] p : partials[a]) for (int j = 0; j < sum.length; j++) sum[j] += p[j];
                t.store(0, sum, 0, sum.length);
            } else {
                t.store(0, shared[a], 0, shared[a].length);
            }
        }
    }

    /** A sum into one row (a weight): per-chunk partials; into many rows: shared, under striped locks. */
    private static boolean accumulatesPerChunk(Expr e) { return e.shape().rank() == 1; }

    private void decompose(long r, long[] idx) {
        for (int d = rowSizes.length - 1; d >= 0; d--) {
            idx[d] = r % rowSizes[d];
            r /= rowSizes[d];
        }
    }

    private long base(int node, long[] idx) {
        long[] s = strides[node];
        long b = 0;
        for (int d = 0; d < s.length; d++) b += idx[d] * s[d];
        return b;
    }

    private void row(float[][] v, long[] idx, long[] lastBase, List<Expr> acc, float[][][] partials, float[][] shared, int chunk) {
        for (int i = 0; i < v.length; i++) {
            Expr e = nodes.get(i);
            Role role = roles[i];
            int[] args = argIndex[i];
            float[] out = v[i];
            int n = lengths[i];
            switch (e.op()) {
                case INPUT -> {
                    long b = base(i, idx);
                    if (b != lastBase[i]) {
                        if (role == Role.VECTOR) tensors[i].load(b, out, 0, n);
                        else out[0] = tensors[i].get(b);
                        lastBase[i] = b;
                    }
                }
                case CONST, PARAM -> { }
                case CAST -> RowMath.round(e.dtype(), out, n, v[args[0]], stride(args[0]));
                case SUM, MEAN, AMAX -> {
                    float[] a = v[args[0]];
                    int len = lengths[args[0]];
                    float s = e.op() == Op.AMAX ? Float.NEGATIVE_INFINITY : 0f;
                    if (e.op() == Op.AMAX) for (int j = 0; j < len; j++) s = Math.max(s, a[j]);
                    else for (int j = 0; j < len; j++) s += a[j];
                    out[0] = e.op() == Op.MEAN ? s / len : s;
                }
                case SLICE -> {
                    float[] a = v[args[0]];
                    for (int j = 0; j < n; j++) out[j] = a[e.start() + e.step() * j];
                }
                case SCATTER -> {
                    float[] a = v[args[0]];
                    java.util.Arrays.fill(out, 0, n, 0f);
                    int m = lengths[args[0]];
                    for (int j = 0; j < m; j++) out[e.start() + e.step() * j] = a[j];
                }
                case CAT -> {
                    int at = 0;
                    for (int p : args) {
                        int m = lengths[p];
                        System.arraycopy(v[p], 0, out, at, m);
                        at += m;
                    }
                }
                case INTERLEAVE -> {
                    float[] a = v[args[0]], b = v[args[1]];
                    for (int j = 0; j < n / 2; j++) {
                        out[2 * j] = a[j];
                        out[2 * j + 1] = b[j];
                    }
                }
                case CMUL -> {
                    float[] a = v[args[0]], b = v[args[1]];
                    for (int j = 0; j < n; j += 2) {
                        float ar = a[j], ai = a[j + 1], br = b[j], bi = b[j + 1];
                        out[j] = ar * br - ai * bi;
                        out[j + 1] = ar * bi + ai * br;
                    }
                }
                case CONJ -> {
                    float[] a = v[args[0]];
                    for (int j = 0; j < n; j++) out[j] = (j & 1) == 0 ? a[j] : -a[j];
                }
                case SUM_TO -> {
                    float[] a = v[args[0]];
                    if (role == Role.VECTOR) System.arraycopy(a, 0, out, 0, n);
                    else accumulate(e, a, idx, acc, partials, shared, chunk);
                }
                default -> {
                    float[] a = v[args[0]];
                    float[] b = args.length > 1 ? v[args[1]] : a;
                    float[] c = args.length > 2 ? v[args[2]] : a;
                    RowMath.pointwise(e.op(), out, n, a, stride(args[0]), b, args.length > 1 ? stride(args[1]) : 0,
                            c, args.length > 2 ? stride(args[2]) : 0, (float) e.num());
                }
            }
            if (output[i] && role != Role.ACCUMULATE) {
                long b = base(i, idx);
                if (role == Role.VECTOR) tensors[i].store(b, out, 0, n);
                else tensors[i].set(b, out[0]);
            }
        }
    }

    private int stride(int operand) { return roles[operand] == Role.VECTOR ? 1 : 0; }

    private void accumulate(Expr e, float[] a, long[] idx, List<Expr> acc, float[][][] partials, float[][] shared, int chunk) {
        int k = acc.indexOf(e);
        int node = nodes.indexOf(e), n = lengths[node];
        if (partials[k] != null) {
            float[] p = partials[k][chunk];
            for (int j = 0; j < n; j++) p[j] += a[j];
            return;
        }
        int at = (int) base(node, idx);
        float[] s = shared[k];
        synchronized (locks[(at / n) % locks.length]) {
            for (int j = 0; j < n; j++) s[at + j] += a[j];
        }
    }
}
