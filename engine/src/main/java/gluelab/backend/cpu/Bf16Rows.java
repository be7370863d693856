package gluelab.backend.cpu;

import gluelab.tensor.Bf16Vectors;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The fused loops straight on bf16 memory: a row or block is read from the tensors' segments two
 * bf16 to an int lane ({@link Bf16Vectors#loadPairs}), its even and odd elements widened in
 * registers and rounded back on the way out, with no float copy of the data and no lane shuffles.
 * A row of the default model (4096 bf16, 8 KiB) stays in L1 between the passes, so memory is read
 * once. The norm weight is kept split: the even elements of each step's pairs, then the odd ones
 * ({@link #split}).
 * Elementwise results match the float loops; sums run in two lane sets (even, odd), so a norm's
 * rstd and dot products may differ from them in the last bits (within the fp64 checks).
 *
 * <p>A row's passes call each other through method handles held in non-final fields, which C2
 * cannot inline, so each pass is compiled on its own. Inlined into one caller, the passes of a
 * row ran past C2's inlining budget (NodeCountInliningCutoff): the vector operations left over
 * stayed calls that box every vector, and the row ran 30-300x slower, or not, depending on the
 * order in which methods happened to be compiled. A handle call costs a few ns a row. A pass that
 * both computes a norm backward's dx and rounds it to bf16 runs past the budget on its own, so
 * that backward writes dx as floats into a row of scratch (in L1) and a separate pass rounds and
 * stores it. Loaded only when the JVM has jdk.incubator.vector.
 */
final class Bf16Rows {
    /** Elements per step. */
    private static final int STEP = Bf16Vectors.PAIR_ELEMENTS;
    private static final int HALF = STEP / 2;

    private Bf16Rows() {}

    // Not final: a constant handle would be inlined (see the class comment).
    private static MethodHandle sumSquaresPass = pass("sumSquares", float.class, MemorySegment.class, long.class, int.class);
    private static MethodHandle addPass = pass("add", void.class, MemorySegment.class, MemorySegment.class, MemorySegment.class, long.class, int.class);
    private static MethodHandle sigmoidsPass = pass("sigmoids", void.class, MemorySegment.class, long.class, int.class, float[].class, float[].class);
    private static MethodHandle upGradPass = pass("upGrad", void.class, MemorySegment.class, MemorySegment.class, MemorySegment.class, long.class, int.class, float[].class);
    private static MethodHandle backwardSumsPass = pass("backwardSums", void.class, MemorySegment.class, MemorySegment.class, long.class, float[].class, int.class, float[].class);
    private static MethodHandle backwardDxPass = pass("backwardDx", void.class, MemorySegment.class, MemorySegment.class, float[].class, long.class, float[].class, float[].class, int.class, float.class, float.class);
    private static MethodHandle storeRowPass = pass("storeRow", void.class, float[].class, MemorySegment.class, long.class, int.class);
    private static MethodHandle storeRowPlusPass = pass("storeRowPlus", void.class, float[].class, MemorySegment.class, MemorySegment.class, long.class, int.class);

    private static MethodHandle pass(String name, Class<?> returns, Class<?>... params) {
        try {
            return MethodHandles.lookup().findStatic(Bf16Rows.class, name, MethodType.methodType(returns, params));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Bf16Rows has no pass " + name, e);
        }
    }

    /** What a pass threw (the passes throw nothing checked). */
    private static RuntimeException rethrow(Throwable e) {
        if (e instanceof RuntimeException r) return r;
        if (e instanceof Error err) throw err;
        return new IllegalStateException(e);
    }

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

    /** A scalar as a vector, once per loop rather than at each use (less code for C2, see the class comment). */
    private static FloatVector broadcast(float v) { return FloatVector.broadcast(Bf16Vectors.FLOATS, v); }

    /** sum of squares of the n values from element {@code at} of x. */
    private static float sumSquares(MemorySegment x, long at, int n) {
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
        float ss;
        try {
            ss = (float) sumSquaresPass.invokeExact(x, at, n);
        } catch (Throwable e) {
            throw rethrow(e);
        }
        scale(x, y, at, w, n, rstd(ss, n, eps));
    }

    /** y = x * rs * w over one row. */
    private static void scale(MemorySegment x, MemorySegment y, long at, float[] w, int n, float rs) {
        int m = vectorPart(n);
        FloatVector rsv = broadcast(rs);
        for (int j = 0; j < m; j += STEP) {
            IntVector p = Bf16Vectors.loadPairs(x, at + j);
            Bf16Vectors.storePairs(Bf16Vectors.even(p).mul(rsv).mul(vector(w, j)), Bf16Vectors.odd(p).mul(rsv).mul(vector(w, j + HALF)), y, at + j);
        }
        for (int j = m; j < n; j++) Bf16Vectors.set(y, at + j, Bf16Vectors.get(x, at + j) * rs * w[j]);
    }

    /** add_rmsnorm forward of one row: h = x + r (stored, rounded), y = norm(h as stored). */
    static void addNorm(MemorySegment x, MemorySegment r, MemorySegment h, MemorySegment y, long at, float[] w, int n, float eps) {
        try {
            addPass.invokeExact(x, r, h, at, n);
        } catch (Throwable e) {
            throw rethrow(e);
        }
        norm(h, y, at, w, n, eps);
    }

    /** h = x + r over one row. */
    private static void add(MemorySegment x, MemorySegment r, MemorySegment h, long at, int n) {
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector px = Bf16Vectors.loadPairs(x, at + j), pr = Bf16Vectors.loadPairs(r, at + j);
            Bf16Vectors.storePairs(Bf16Vectors.even(px).add(Bf16Vectors.even(pr)), Bf16Vectors.odd(px).add(Bf16Vectors.odd(pr)), h, at + j);
        }
        for (int j = m; j < n; j++) Bf16Vectors.set(h, at + j, Bf16Vectors.get(x, at + j) + Bf16Vectors.get(r, at + j));
    }

    /**
     * RMSNorm backward of the row at element {@code at}, from x and the upstream grad g: dx (plus
     * {@code addend}'s row when it is not null: the residual's grad of add_rmsnorm) stored, dw
     * accumulated into {@code dwAcc}. w and dwAcc are split; {@code tmp} is a row of scratch and
     * {@code sums} two floats of it, both reused row after row.
     */
    static void normBackward(MemorySegment x, MemorySegment g, MemorySegment addend, MemorySegment dx, long at, float[] w, float[] dwAcc,
                             float[] tmp, float[] sums, int n, float eps) {
        try {
            backwardSumsPass.invokeExact(x, g, at, w, n, sums);
            float rs = rstd(sums[0], n, eps);
            // dx = rs * (g * w - x * rs * dot), dot = sum(g * w * x * rs) / n
            float c = rs * (rs * sums[1] / n);
            backwardDxPass.invokeExact(x, g, tmp, at, w, dwAcc, n, rs, c);
            if (addend == null) storeRowPass.invokeExact(tmp, dx, at, n);
            else storeRowPlusPass.invokeExact(tmp, addend, dx, at, n);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /** sums[0] = sum of x squared, sums[1] = sum of g * w * x, over one row. */
    private static void backwardSums(MemorySegment x, MemorySegment g, long at, float[] w, int n, float[] sums) {
        FloatVector se = FloatVector.zero(Bf16Vectors.FLOATS), so = se, de = se, dO = se;
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector px = Bf16Vectors.loadPairs(x, at + j), pg = Bf16Vectors.loadPairs(g, at + j);
            FloatVector xe = Bf16Vectors.even(px), xo = Bf16Vectors.odd(px);
            se = xe.fma(xe, se);
            so = xo.fma(xo, so);
            de = Bf16Vectors.even(pg).mul(vector(w, j)).fma(xe, de);
            dO = Bf16Vectors.odd(pg).mul(vector(w, j + HALF)).fma(xo, dO);
        }
        float ss = se.add(so).reduceLanes(VectorOperators.ADD), dot = de.add(dO).reduceLanes(VectorOperators.ADD);
        for (int j = m; j < n; j++) {
            float xv = Bf16Vectors.get(x, at + j);
            ss += xv * xv;
            dot += Bf16Vectors.get(g, at + j) * w[j] * xv;
        }
        sums[0] = ss;
        sums[1] = dot;
    }

    /** tmp = (g * w - x * c) * rs and dwAcc += g * x * rs over one row (split layout). */
    private static void backwardDx(MemorySegment x, MemorySegment g, float[] tmp, long at, float[] w, float[] dwAcc, int n, float rs, float c) {
        FloatVector rsv = broadcast(rs), cv = broadcast(c);
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector px = Bf16Vectors.loadPairs(x, at + j), pg = Bf16Vectors.loadPairs(g, at + j);
            FloatVector xe = Bf16Vectors.even(px), xo = Bf16Vectors.odd(px), ge = Bf16Vectors.even(pg), go = Bf16Vectors.odd(pg);
            ge.fma(xe.mul(rsv), vector(dwAcc, j)).intoArray(dwAcc, j);
            go.fma(xo.mul(rsv), vector(dwAcc, j + HALF)).intoArray(dwAcc, j + HALF);
            ge.mul(vector(w, j)).sub(xe.mul(cv)).mul(rsv).intoArray(tmp, j);
            go.mul(vector(w, j + HALF)).sub(xo.mul(cv)).mul(rsv).intoArray(tmp, j + HALF);
        }
        for (int j = m; j < n; j++) {
            float xv = Bf16Vectors.get(x, at + j), gv = Bf16Vectors.get(g, at + j);
            dwAcc[j] += gv * (xv * rs);
            tmp[j] = (gv * w[j] - xv * c) * rs;
        }
    }

    /** A row of split floats rounded to bf16 at element {@code at} of y. */
    private static void storeRow(float[] tmp, MemorySegment y, long at, int n) {
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) Bf16Vectors.storePairs(vector(tmp, j), vector(tmp, j + HALF), y, at + j);
        for (int j = m; j < n; j++) Bf16Vectors.set(y, at + j, tmp[j]);
    }

    /** storeRow of tmp plus the bf16 row of {@code addend}. */
    private static void storeRowPlus(float[] tmp, MemorySegment addend, MemorySegment y, long at, int n) {
        int m = vectorPart(n);
        for (int j = 0; j < m; j += STEP) {
            IntVector pa = Bf16Vectors.loadPairs(addend, at + j);
            Bf16Vectors.storePairs(vector(tmp, j).add(Bf16Vectors.even(pa)), vector(tmp, j + HALF).add(Bf16Vectors.odd(pa)), y, at + j);
        }
        for (int j = m; j < n; j++) Bf16Vectors.set(y, at + j, tmp[j] + Bf16Vectors.get(addend, at + j));
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

    /**
     * SwiGLU backward over elements [from, to) (at most {@code sg.length}): dgate and dup from gate,
     * up and the grad dy. The sigmoid and 1 + gate * (1 - sigmoid) go through {@code sg} and
     * {@code k} (split layout, in L1) so that each pass stays small enough for C2 to compile whole
     * (see the class comment).
     */
    static void swigluBackward(MemorySegment gate, MemorySegment up, MemorySegment dy, MemorySegment dgate, MemorySegment dup,
                               long from, long to, float[] sg, float[] k) {
        int len = (int) (to - from), m = vectorPart(len);
        try {
            sigmoidsPass.invokeExact(gate, from, m, sg, k);
            upGradPass.invokeExact(gate, dy, dup, from, m, sg);
        } catch (Throwable e) {
            throw rethrow(e);
        }
        gateGrad(up, dy, dgate, from, m, sg, k);
        for (long i = from + m; i < to; i++) {
            float x = Bf16Vectors.get(gate, i), d = Bf16Vectors.get(dy, i), s = 1f / (1f + (float) Math.exp(-x));
            Bf16Vectors.set(dup, i, d * x * s);
            Bf16Vectors.set(dgate, i, d * Bf16Vectors.get(up, i) * s * (1 + x * (1 - s)));
        }
    }

    /** sg = sigmoid(gate) and k = 1 + gate * (1 - sg) over m elements from element {@code at}, split. */
    private static void sigmoids(MemorySegment gate, long at, int m, float[] sg, float[] k) {
        for (int j = 0; j < m; j += STEP) {
            IntVector p = Bf16Vectors.loadPairs(gate, at + j);
            sigmoid(Bf16Vectors.even(p), sg, k, j);
            sigmoid(Bf16Vectors.odd(p), sg, k, j + HALF);
        }
    }

    private static void sigmoid(FloatVector x, float[] sg, float[] k, int j) {
        FloatVector s = FloatVector.broadcast(Bf16Vectors.FLOATS, 1f).div(x.neg().lanewise(VectorOperators.EXP).add(1f));
        s.intoArray(sg, j);
        x.mul(s.neg().add(1f)).add(1f).intoArray(k, j);
    }

    /** dup = dy * gate * sg. */
    private static void upGrad(MemorySegment gate, MemorySegment dy, MemorySegment dup, long at, int m, float[] sg) {
        for (int j = 0; j < m; j += STEP) {
            IntVector pg = Bf16Vectors.loadPairs(gate, at + j), pd = Bf16Vectors.loadPairs(dy, at + j);
            Bf16Vectors.storePairs(Bf16Vectors.even(pd).mul(Bf16Vectors.even(pg)).mul(vector(sg, j)),
                    Bf16Vectors.odd(pd).mul(Bf16Vectors.odd(pg)).mul(vector(sg, j + HALF)), dup, at + j);
        }
    }

    /** dgate = dy * up * sg * k. */
    private static void gateGrad(MemorySegment up, MemorySegment dy, MemorySegment dgate, long at, int m, float[] sg, float[] k) {
        for (int j = 0; j < m; j += STEP) {
            IntVector pu = Bf16Vectors.loadPairs(up, at + j), pd = Bf16Vectors.loadPairs(dy, at + j);
            Bf16Vectors.storePairs(Bf16Vectors.even(pd).mul(Bf16Vectors.even(pu)).mul(vector(sg, j)).mul(vector(k, j)),
                    Bf16Vectors.odd(pd).mul(Bf16Vectors.odd(pu)).mul(vector(sg, j + HALF)).mul(vector(k, j + HALF)), dgate, at + j);
        }
    }
}
