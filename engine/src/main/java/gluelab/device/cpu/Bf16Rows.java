package gluelab.device.cpu;

import gluelab.tensor.Bf16Vectors;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;

/**
 * The fused loops straight on bf16 memory: a row or block is read from the tensors' segments two
 * bf16 to an int lane ({@link Bf16Vectors#loadPairs}), its even and odd elements widened in
 * registers and rounded back on the way out, with no float copy of the data and no lane shuffles.
 * A row of the default model (4096 bf16, 8 KiB) stays in L1 between the passes, so memory is read
 * once. Row vectors (the norm weight, its gradient's accumulator) are kept split: the even
 * elements of each step's pairs, then the odd ones ({@link #split}, {@link #unsplit}).
 * Elementwise results match the float loops; sums run in two lanes sets (even, odd), so a norm's
 * rstd and dot products may differ from them in the last bits (within the fp64 checks).
 * Loaded only when the JVM has jdk.incubator.vector.
 */
final class Bf16Rows {
    /** Elements per step. */
    private static final int STEP = Bf16Vectors.PAIR_ELEMENTS;
    private static final int HALF = STEP / 2;

    private Bf16Rows() {}

    /** The first n elements that whole steps cover. */
    static int vectorPart(int n) { return n - n % STEP; }

    /** v in the split layout: per step of STEP elements, its even elements then its odd ones; the tail as is. */
    static float[] split(float[] v, int n) {
        float[] out = new float[n];
        int m = vectorPart(n);
        for (int s = 0; s < m; s += STEP) {
            for (int k = 0; k < HALF; k++) {
                out[s + k] = v[s + 2 * k];
                out[s + HALF + k] = v[s + 2 * k + 1];
            }
        }
        System.arraycopy(v, m, out, m, n - m);
        return out;
    }

    /** The inverse of {@link #split}. */
    static float[] unsplit(float[] v, int n) {
        float[] out = new float[n];
        int m = vectorPart(n);
        for (int s = 0; s < m; s += STEP) {
            for (int k = 0; k < HALF; k++) {
                out[s + 2 * k] = v[s + k];
                out[s + 2 * k + 1] = v[s + HALF + k];
            }
        }
        System.arraycopy(v, m, out, m, n - m);
        return out;
    }

    private static FloatVector vector(float[] a, int i) { return FloatVector.fromArray(Bf16Vectors.FLOATS, a, i); }

    /** sum of squares of the n values from element {@code at} of x. */
    static float sumSquares(MemorySegment x, long at, int n) {
        FloatVector even = FloatVector.zero(Bf16Vectors.FLOATS), odd = even;
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector p = Bf16Vectors.loadPairs(x, at + j);
            FloatVector e = Bf16Vectors.even(p), o = Bf16Vectors.odd(p);
            even = e.fma(e, even);
            odd = o.fma(o, odd);
        }
        float ss = even.add(odd).reduceLanes(VectorOperators.ADD);
        for (int j = m; j < n; j++) {
            float v = Bf16Vectors.get(x, at + j);
            ss += v * v;
        }
        return ss;
    }

    static float rstd(float sumSquares, int n, float eps) { return (float) (1.0 / Math.sqrt(sumSquares / n + eps)); }

    /** RMSNorm forward of the row at element {@code at}: y = x * rstd * w (w split). */
    static void norm(MemorySegment x, MemorySegment y, long at, float[] w, int n, float eps) {
        float rs = rstd(sumSquares(x, at, n), n, eps);
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector p = Bf16Vectors.loadPairs(x, at + j);
            Bf16Vectors.storePairs(Bf16Vectors.even(p).mul(rs).mul(vector(w, j)), Bf16Vectors.odd(p).mul(rs).mul(vector(w, j + HALF)), y, at + j);
        }
        for (int j = m; j < n; j++) Bf16Vectors.set(y, at + j, Bf16Vectors.get(x, at + j) * rs * w[j]);
    }

    /** add_rmsnorm forward of one row: h = x + r (stored, rounded), y = norm(h as stored). */
    static void addNorm(MemorySegment x, MemorySegment r, MemorySegment h, MemorySegment y, long at, float[] w, int n, float eps) {
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector px = Bf16Vectors.loadPairs(x, at + j), pr = Bf16Vectors.loadPairs(r, at + j);
            Bf16Vectors.storePairs(Bf16Vectors.even(px).add(Bf16Vectors.even(pr)), Bf16Vectors.odd(px).add(Bf16Vectors.odd(pr)), h, at + j);
        }
        for (int j = m; j < n; j++) Bf16Vectors.set(h, at + j, Bf16Vectors.get(x, at + j) + Bf16Vectors.get(r, at + j));
        norm(h, y, at, w, n, eps);
    }

    /**
     * RMSNorm backward of one row from x and its upstream grad g: accumulates dw into dwAcc and
     * writes dx (plus the residual's grad {@code addend}, when not null). w and dwAcc are split.
     */
    static void normBackward(MemorySegment x, MemorySegment g, MemorySegment addend, MemorySegment dx, long at,
                             float[] w, float[] dwAcc, int n, float eps) {
        float rs = rstd(sumSquares(x, at, n), n, eps);
        FloatVector dotEven = FloatVector.zero(Bf16Vectors.FLOATS), dotOdd = dotEven;
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector px = Bf16Vectors.loadPairs(x, at + j), pg = Bf16Vectors.loadPairs(g, at + j);
            FloatVector ne = Bf16Vectors.even(px).mul(rs), no = Bf16Vectors.odd(px).mul(rs);
            FloatVector ge = Bf16Vectors.even(pg), go = Bf16Vectors.odd(pg);
            ge.fma(ne, vector(dwAcc, j)).intoArray(dwAcc, j);
            go.fma(no, vector(dwAcc, j + HALF)).intoArray(dwAcc, j + HALF);
            dotEven = ge.mul(vector(w, j)).fma(ne, dotEven);
            dotOdd = go.mul(vector(w, j + HALF)).fma(no, dotOdd);
        }
        float dot = dotEven.add(dotOdd).reduceLanes(VectorOperators.ADD);
        for (int j = m; j < n; j++) {
            float nv = Bf16Vectors.get(x, at + j) * rs, gj = Bf16Vectors.get(g, at + j);
            dwAcc[j] += gj * nv;
            dot += gj * w[j] * nv;
        }
        dot /= n;
        for (int j = 0; j < m; j += STEP) {
            IntVector px = Bf16Vectors.loadPairs(x, at + j), pg = Bf16Vectors.loadPairs(g, at + j);
            FloatVector de = Bf16Vectors.even(pg).mul(vector(w, j)).sub(Bf16Vectors.even(px).mul(rs).mul(dot)).mul(rs);
            FloatVector dodd = Bf16Vectors.odd(pg).mul(vector(w, j + HALF)).sub(Bf16Vectors.odd(px).mul(rs).mul(dot)).mul(rs);
            if (addend != null) {
                IntVector pa = Bf16Vectors.loadPairs(addend, at + j);
                de = de.add(Bf16Vectors.even(pa));
                dodd = dodd.add(Bf16Vectors.odd(pa));
            }
            Bf16Vectors.storePairs(de, dodd, dx, at + j);
        }
        for (int j = m; j < n; j++) {
            float d = rs * (Bf16Vectors.get(g, at + j) * w[j] - Bf16Vectors.get(x, at + j) * rs * dot);
            if (addend != null) d += Bf16Vectors.get(addend, at + j);
            Bf16Vectors.set(dx, at + j, d);
        }
    }

    private static FloatVector silu(FloatVector x) { return x.div(x.neg().lanewise(VectorOperators.EXP).add(1f)); }

    /** out = silu(gate) * up over elements [from, to). */
    static void swiglu(MemorySegment gate, MemorySegment up, MemorySegment out, long from, long to) {
        long i = from;
        for (long end = to - STEP; i <= end; i += STEP) {
            IntVector pg = Bf16Vectors.loadPairs(gate, i), pu = Bf16Vectors.loadPairs(up, i);
            Bf16Vectors.storePairs(silu(Bf16Vectors.even(pg)).mul(Bf16Vectors.even(pu)), silu(Bf16Vectors.odd(pg)).mul(Bf16Vectors.odd(pu)), out, i);
        }
        for (; i < to; i++) {
            float x = Bf16Vectors.get(gate, i);
            Bf16Vectors.set(out, i, x / (1f + (float) Math.exp(-x)) * Bf16Vectors.get(up, i));
        }
    }

    /** SwiGLU backward over elements [from, to): dgate and dup from gate, up and the grad dy. */
    static void swigluBackward(MemorySegment gate, MemorySegment up, MemorySegment dy, MemorySegment dgate, MemorySegment dup,
                               long from, long to) {
        long i = from;
        for (long end = to - STEP; i <= end; i += STEP) {
            IntVector pg = Bf16Vectors.loadPairs(gate, i), pu = Bf16Vectors.loadPairs(up, i), pd = Bf16Vectors.loadPairs(dy, i);
            FloatVector xe = Bf16Vectors.even(pg), xo = Bf16Vectors.odd(pg), de = Bf16Vectors.even(pd), dodd = Bf16Vectors.odd(pd);
            FloatVector se = sigmoid(xe), so = sigmoid(xo);
            Bf16Vectors.storePairs(de.mul(xe).mul(se), dodd.mul(xo).mul(so), dup, i);
            Bf16Vectors.storePairs(gateGrad(xe, se, de, Bf16Vectors.even(pu)), gateGrad(xo, so, dodd, Bf16Vectors.odd(pu)), dgate, i);
        }
        for (; i < to; i++) {
            float x = Bf16Vectors.get(gate, i), d = Bf16Vectors.get(dy, i), sg = 1f / (1f + (float) Math.exp(-x));
            Bf16Vectors.set(dup, i, d * x * sg);
            Bf16Vectors.set(dgate, i, d * Bf16Vectors.get(up, i) * sg * (1 + x * (1 - sg)));
        }
    }

    private static FloatVector sigmoid(FloatVector x) {
        return FloatVector.broadcast(Bf16Vectors.FLOATS, 1f).div(x.neg().lanewise(VectorOperators.EXP).add(1f));
    }

    /** d * up * sg * (1 + x * (1 - sg)). */
    private static FloatVector gateGrad(FloatVector x, FloatVector sg, FloatVector d, FloatVector up) {
        return d.mul(up).mul(sg).mul(x.mul(sg.neg().add(1f)).add(1f));
    }
}
