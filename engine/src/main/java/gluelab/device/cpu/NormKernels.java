package gluelab.device.cpu;

import gluelab.device.cpu.Primitives.Binary;
import gluelab.device.cpu.Primitives.Unary;
import gluelab.tensor.Tensor;

/** RMSNorm over rows of width n: the eager primitive chains and the fused row loops, shared by the norm ops. */
final class NormKernels {
    private NormKernels() {}

    /** Eager y = x * rsqrt(mean(x^2) + eps) * w: 6 primitive passes. */
    static void eagerForward(Program p, CpuParallel par, Tensor x, Tensor w, Tensor y, long rows, long n, float eps) {
        var dt = x.dtype();
        Tensor sq = p.scratch("sq", dt, rows, n), ms = p.scratch("ms", dt, rows), mse = p.scratch("ms_eps", dt, rows);
        Tensor r = p.scratch("rstd", dt, rows), xr = p.scratch("x_rstd", dt, rows, n);
        p.pass(() -> Primitives.unary(par, Unary.SQUARE, x, sq, 0))
                .pass(() -> Primitives.sumLast(par, sq, ms, n, 1f / n))
                .pass(() -> Primitives.unary(par, Unary.ADD_SCALAR, ms, mse, eps))
                .pass(() -> Primitives.unary(par, Unary.RSQRT, mse, r, 0))
                .pass(() -> Primitives.mulRows(par, x, r, xr, n))
                .pass(() -> Primitives.mulCols(par, xr, w, y, n));
    }

    /** Eager backward as autograd runs it after recomputing the forward's intermediates: 18 passes. */
    static void eagerBackward(Program p, CpuParallel par, Tensor x, Tensor w, Tensor dy, Tensor dx, Tensor dw,
                              long rows, long n, float eps) {
        var dt = x.dtype();
        Tensor sq = p.scratch("sq", dt, rows, n), ms = p.scratch("ms", dt, rows), mse = p.scratch("ms_eps", dt, rows);
        Tensor r = p.scratch("rstd", dt, rows), xr = p.scratch("x_rstd", dt, rows, n);
        Tensor dyxr = p.scratch("dy_xr", dt, rows, n), g = p.scratch("g", dt, rows, n), gx = p.scratch("gx", dt, rows, n);
        Tensor dr = p.scratch("drstd", dt, rows), r3 = p.scratch("rstd3", dt, rows), dms = p.scratch("dms", dt, rows);
        Tensor dms2 = p.scratch("dms_scaled", dt, rows), dsq = p.scratch("dsq", dt, rows, n), x2 = p.scratch("x2", dt, rows, n);
        Tensor part2 = p.scratch("part2", dt, rows, n), part1 = p.scratch("part1", dt, rows, n);
        p.pass(() -> Primitives.unary(par, Unary.SQUARE, x, sq, 0))
                .pass(() -> Primitives.sumLast(par, sq, ms, n, 1f / n))
                .pass(() -> Primitives.unary(par, Unary.ADD_SCALAR, ms, mse, eps))
                .pass(() -> Primitives.unary(par, Unary.RSQRT, mse, r, 0))
                .pass(() -> Primitives.mulRows(par, x, r, xr, n))
                .pass(() -> Primitives.binary(par, Binary.MUL, dy, xr, dyxr))
                .pass(() -> Primitives.sumCols(par, dyxr, dw, n))
                .pass(() -> Primitives.mulCols(par, dy, w, g, n))
                .pass(() -> Primitives.binary(par, Binary.MUL, g, x, gx))
                .pass(() -> Primitives.sumLast(par, gx, dr, n, 1f))
                .pass(() -> Primitives.unary(par, Unary.CUBE, r, r3, 0))
                .pass(() -> Primitives.binary(par, Binary.MUL, dr, r3, dms))
                .pass(() -> Primitives.unary(par, Unary.MUL_SCALAR, dms, dms2, -0.5f))
                .pass(() -> Primitives.expandRows(par, dms2, dsq, n, 1f / n))
                .pass(() -> Primitives.unary(par, Unary.MUL_SCALAR, x, x2, 2f))
                .pass(() -> Primitives.binary(par, Binary.MUL, x2, dsq, part2))
                .pass(() -> Primitives.mulRows(par, g, r, part1, n))
                .pass(() -> Primitives.binary(par, Binary.ADD, part1, part2, dx));
    }

    /** Fused forward of one row held in x: y = x * rstd * w (x and y may be the same array). */
    static void fusedRow(float[] x, float[] w, float[] y, int n, float eps) {
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
