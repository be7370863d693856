package gluelab.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The fused row loops on the CPU's SIMD units (jdk.incubator.vector): sums kept in vector lanes and
 * reduced once per row, exp through the vector library. Loaded only when the JVM was started with
 * {@code --add-modules jdk.incubator.vector} (the launcher, tests, bundle and kernelspec add it);
 * {@link NormKernels} falls back to its scalar loops otherwise.
 */
final class VectorRows {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    private VectorRows() {}

    static float sumSquares(float[] x, int n) {
        FloatVector acc = FloatVector.zero(S);
        int j = 0;
        for (; j < S.loopBound(n); j += S.length()) {
            FloatVector v = FloatVector.fromArray(S, x, j);
            acc = v.fma(v, acc);
        }
        float ss = acc.reduceLanes(VectorOperators.ADD);
        for (; j < n; j++) ss += x[j] * x[j];
        return ss;
    }

    /** y = x * rs * w. */
    static void scale(float[] x, float[] w, float[] y, int n, float rs) {
        int j = 0;
        for (; j < S.loopBound(n); j += S.length()) {
            FloatVector.fromArray(S, x, j).mul(rs).mul(FloatVector.fromArray(S, w, j)).intoArray(y, j);
        }
        for (; j < n; j++) y[j] = x[j] * rs * w[j];
    }

    /** The norm backward of one row: accumulates dw, returns sum(g * w * x * rs). */
    static float backwardDot(float[] x, float[] w, float[] g, float[] dwAcc, int n, float rs) {
        FloatVector dot = FloatVector.zero(S);
        int j = 0;
        for (; j < S.loopBound(n); j += S.length()) {
            FloatVector nv = FloatVector.fromArray(S, x, j).mul(rs), gv = FloatVector.fromArray(S, g, j);
            gv.fma(nv, FloatVector.fromArray(S, dwAcc, j)).intoArray(dwAcc, j);
            dot = gv.mul(FloatVector.fromArray(S, w, j)).fma(nv, dot);
        }
        float d = dot.reduceLanes(VectorOperators.ADD);
        for (; j < n; j++) {
            float nv = x[j] * rs;
            dwAcc[j] += g[j] * nv;
            d += g[j] * w[j] * nv;
        }
        return d;
    }

    /** dx = rs * (g * w - x * rs * dot). */
    static void backwardDx(float[] x, float[] w, float[] g, float[] dx, int n, float rs, float dot) {
        int j = 0;
        for (; j < S.loopBound(n); j += S.length()) {
            FloatVector nv = FloatVector.fromArray(S, x, j).mul(rs);
            FloatVector.fromArray(S, g, j).mul(FloatVector.fromArray(S, w, j)).sub(nv.mul(dot)).mul(rs).intoArray(dx, j);
        }
        for (; j < n; j++) dx[j] = rs * (g[j] * w[j] - x[j] * rs * dot);
    }

    /** a = silu(a) * b over len elements. */
    static void swiglu(float[] a, float[] b, int len) {
        int j = 0;
        for (; j < S.loopBound(len); j += S.length()) {
            FloatVector x = FloatVector.fromArray(S, a, j);
            FloatVector e = x.neg().lanewise(VectorOperators.EXP);
            x.div(e.add(1f)).mul(FloatVector.fromArray(S, b, j)).intoArray(a, j);
        }
        for (; j < len; j++) a[j] = a[j] / (1f + (float) Math.exp(-a[j])) * b[j];
    }

    /** SwiGLU backward: a = dgate, b = dup, from gate a, up, grad d. */
    static void swigluBackward(float[] a, float[] b, float[] up, float[] d, int len) {
        int j = 0;
        for (; j < S.loopBound(len); j += S.length()) {
            FloatVector x = FloatVector.fromArray(S, a, j), dv = FloatVector.fromArray(S, d, j);
            FloatVector sg = FloatVector.broadcast(S, 1f).div(x.neg().lanewise(VectorOperators.EXP).add(1f));
            dv.mul(x).mul(sg).intoArray(b, j);
            dv.mul(FloatVector.fromArray(S, up, j)).mul(sg).mul(x.mul(sg.neg().add(1f)).add(1f)).intoArray(a, j);
        }
        for (; j < len; j++) {
            float x = a[j], sg = 1f / (1f + (float) Math.exp(-x));
            b[j] = d[j] * x * sg;
            a[j] = d[j] * up[j] * sg * (1 + x * (1 - sg));
        }
    }
}
