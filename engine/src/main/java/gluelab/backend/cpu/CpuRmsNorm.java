package gluelab.backend.cpu;

import gluelab.ops.OpId;
import gluelab.device.KernelConfig;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.Pass;
import gluelab.tensor.Tensor;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

public final class CpuRmsNorm implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(OpId.of("rmsnorm")); }

    /** Rows per dw partial: fixed, so dw does not depend on the thread count. */
    static final long ROW_CHUNK = 64;

    /** Rows per task of the forward loop; rows per dw partial of the backward one. */
    static List<KernelConfig> normConfigs(OpInstance in) {
        return in.pass() == Pass.FORWARD ? CpuKernels.sizes("cpu_rmsnorm_fwd", "rows", 1, 2, 4, 8, 16, 32, 64, 128)
                : CpuKernels.sizes("cpu_rmsnorm_bwd", "rows", (int) ROW_CHUNK, 8, 16, 32, 128, 256, 512, 1024);
    }

    @Override public List<KernelConfig> configs(OpInstance in) { return normConfigs(in); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) { return fused(in, t, par, normConfigs(in).getFirst()); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par, KernelConfig config) {
        int size = config.get("rows");
        long rows = in.shape().tokens();
        int n = (int) in.shape().dim("D");
        float eps = (float) in.shape().param("eps");
        Tensor x = t.get("x"), w = t.get("w");
        Program p = new Program();
        if (in.pass() == Pass.FORWARD) {
            Tensor y = t.get("y");
            if (NormKernels.onBf16Rows(x, y)) {
                return p.pass(() -> {
                    float[] wv = Bf16Rows.split(NormKernels.vector(w), n);
                    MemorySegment xs = x.segment(), ys = y.segment();
                    par.range(rows, size, (from, to) -> {
                        for (long r = from; r < to; r++) Bf16Rows.norm(xs, ys, r * n, wv, n, eps);
                    });
                });
            }
            return p.pass(() -> {
                float[] wv = NormKernels.vector(w);
                Primitives.rows(par, rows, n, size, (r, a, b) -> {
                    x.load(r * n, a, 0, n);
                    NormKernels.fusedRow(a, wv, a, n, eps);
                    y.store(r * n, a, 0, n);
                });
            });
        }
        return p.pass(() -> fusedBackward(par, x, w, t.get("dy"), null, t.get("dx"), t.get("dw"), rows, n, eps, size));
    }

    /** One pass: per row load x and dy (and the residual grad addend), write dx, accumulate dw. */
    static void fusedBackward(CpuParallel par, Tensor x, Tensor w, Tensor dy, Tensor addend, Tensor dx, Tensor dw,
                              long rows, int n, float eps, long chunk) {
        if (NormKernels.onBf16Rows(x, dy, addend, dx)) {
            bf16Backward(par, x, w, dy, addend, dx, dw, rows, n, eps, chunk);
            return;
        }
        float[] wv = NormKernels.vector(w);
        float[][] partials = new float[(int) ((rows + chunk - 1) / chunk)][];
        par.chunks(rows, chunk, (from, to) -> {
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
            partials[(int) (from / chunk)] = acc;
        });
        NormKernels.storeColumnSum(partials, dw, n);
    }

    /** {@link #fusedBackward} on {@link Bf16Rows}: w and the dw partials in its split layout. */
    private static void bf16Backward(CpuParallel par, Tensor x, Tensor w, Tensor dy, Tensor addend, Tensor dx, Tensor dw,
                                     long rows, int n, float eps, long chunk) {
        float[] wv = Bf16Rows.split(NormKernels.vector(w), n);
        float[][] partials = new float[(int) ((rows + chunk - 1) / chunk)][];
        MemorySegment xs = x.segment(), gs = dy.segment(), as = addend == null ? null : addend.segment(), dxs = dx.segment();
        par.chunks(rows, chunk, (from, to) -> {
            float[] acc = new float[n], tmp = new float[n], sums = new float[2];
            for (long r = from; r < to; r++) Bf16Rows.normBackward(xs, gs, as, dxs, r * n, wv, acc, tmp, sums, n, eps);
            partials[(int) (from / chunk)] = Bf16Rows.unsplit(acc, n);
        });
        NormKernels.storeColumnSum(partials, dw, n);
    }
}
