package gluelab.backend.cpu;

import gluelab.tensor.DType;
import gluelab.tensor.Tensor;

/** RMSNorm over rows of width n: the fused row loops shared by the norm ops. */
final class NormKernels {
    private NormKernels() {}

    /** True when the JVM runs with jdk.incubator.vector, so the row loops use {@link VectorRows}. */
    static final boolean VECTOR = Tensor.VECTOR_API;

    /** True when the loops can run on {@link Bf16Rows}: the Vector API is there and every tensor is bf16. */
    static boolean onBf16Rows(Tensor... tensors) {
        if (!VECTOR) return false;
        for (Tensor t : tensors) if (t != null && t.dtype() != DType.BF16) return false;
        return true;
    }

    /** Fused forward of one row held in x: y = x * rstd * w (x and y may be the same array). */
    static void fusedRow(float[] x, float[] w, float[] y, int n, float eps) {
        if (VECTOR) {
            VectorRows.scale(x, w, y, n, (float) (1.0 / Math.sqrt(VectorRows.sumSquares(x, n) / n + eps)));
            return;
        }
        float ss = 0;
        for (int j = 0; j < n; j++) ss += x[j] * x[j];
        float rs = (float) (1.0 / Math.sqrt(ss / n + eps));
        for (int j = 0; j < n; j++) y[j] = x[j] * rs * w[j];
    }

    /**
     * Fused backward of one row: from x and the upstream grad g, writes dx (into g's place is not
     * allowed: dx must be its own array) and accumulates dw.
     */
    static void fusedBackwardRow(float[] x, float[] w, float[] g, float[] dx, float[] dwAcc, int n, float eps) {
        if (VECTOR) {
            float rs = (float) (1.0 / Math.sqrt(VectorRows.sumSquares(x, n) / n + eps));
            float dot = VectorRows.backwardDot(x, w, g, dwAcc, n, rs) / n;
            VectorRows.backwardDx(x, w, g, dx, n, rs, dot);
            return;
        }
        float ss = 0;
        for (int j = 0; j < n; j++) ss += x[j] * x[j];
        float rs = (float) (1.0 / Math.sqrt(ss / n + eps));
        float dot = 0;
        for (int j = 0; j < n; j++) {
            float norm = x[j] * rs;
            dwAcc[j] += g[j] * norm;
            dot += g[j] * w[j] * norm;
        }
        dot /= n;
        for (int j = 0; j < n; j++) dx[j] = rs * (g[j] * w[j] - x[j] * rs * dot);
    }

    /** Loads a whole small vector (a norm weight) once per launch. */
    static float[] vector(Tensor t) {
        float[] v = new float[(int) t.elements()];
        t.load(0, v, 0, v.length);
        return v;
    }

    /** Sums per-chunk dw partials in chunk order and stores them. */
    static void storeColumnSum(float[][] partials, Tensor dw, int n) {
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (float[] p : partials) if (p != null) s += p[j];
            dw.set(j, s);
        }
    }
}
