package gluelab.device.cpu;

import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.Pass;
import gluelab.tensor.Tensor;

import java.util.Map;

final class CpuRmsNorm implements CpuKernels.OpKernels {
    /** Rows per dw partial: fixed, so dw does not depend on the thread count. */
    static final long ROW_CHUNK = 64;

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        long rows = in.shape().tokens();
        int n = (int) in.shape().dim("D");
        float eps = (float) in.shape().param("eps");
        Tensor x = t.get("x"), w = t.get("w");
        Program p = new Program();
        if (in.pass() == Pass.FORWARD) {
            Tensor y = t.get("y");
            return p.pass(() -> {
                float[] wv = NormKernels.vector(w);
                Primitives.rows(par, rows, n, (r, a, b) -> {
                    x.load(r * n, a, 0, n);
                    NormKernels.fusedRow(a, wv, a, n, eps);
                    y.store(r * n, a, 0, n);
                });
            });
        }
        return p.pass(() -> fusedBackward(par, x, w, t.get("dy"), null, t.get("dx"), t.get("dw"), rows, n, eps));
    }

    /** One pass: per row load x and dy (and the residual grad addend), write dx, accumulate dw. */
    static void fusedBackward(CpuParallel par, Tensor x, Tensor w, Tensor dy, Tensor addend, Tensor dx, Tensor dw,
                              long rows, int n, float eps) {
        float[] wv = NormKernels.vector(w);
        float[][] partials = new float[(int) ((rows + ROW_CHUNK - 1) / ROW_CHUNK)][];
        par.chunks(rows, ROW_CHUNK, (from, to) -> {
            float[] acc = new float[n], xa = new float[n], g = new float[n], out = new float[n], add = new float[n];
            for (long r = from; r < to; r++) {
                x.load(r * n, xa, 0, n);
                dy.load(r * n, g, 0, n);
                NormKernels.fusedBackwardRow(xa, wv, g, out, acc, n, eps);
                if (addend != null) {
                    addend.load(r * n, add, 0, n);
                    for (int j = 0; j < n; j++) out[j] += add[j];
                }
                dx.store(r * n, out, 0, n);
            }
            partials[(int) (from / ROW_CHUNK)] = acc;
        });
        NormKernels.storeColumnSum(partials, dw, n);
    }
}
