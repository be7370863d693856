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

public final class CpuAddRmsNorm implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(OpId.of("add_rmsnorm")); }

    @Override public List<KernelConfig> configs(OpInstance in) { return CpuRmsNorm.normConfigs(in); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) { return fused(in, t, par, configs(in).getFirst()); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par, KernelConfig config) {
        int size = config.get("rows");
        long rows = in.shape().tokens();
        int n = (int) in.shape().dim("D");
        float eps = (float) in.shape().param("eps");
        Tensor w = t.get("w");
        Program p = new Program();
        if (in.pass() == Pass.BACKWARD) {
            return p.pass(() -> CpuRmsNorm.fusedBackward(par, t.get("h"), w, t.get("dy"), t.get("dh"), t.get("dx"), t.get("dw"), rows, n, eps, size));
        }
        Tensor x = t.get("x"), r = t.get("r"), h = t.get("h"), y = t.get("y");
        if (NormKernels.onBf16Rows(x, r, h, y)) {
            return p.pass(() -> {
                float[] wv = Bf16Rows.split(NormKernels.vector(w), n);
                MemorySegment xs = x.segment(), rs = r.segment(), hs = h.segment(), ys = y.segment();
                par.range(rows, size, (from, to) -> {
                    for (long row = from; row < to; row++) Bf16Rows.addNorm(xs, rs, hs, ys, row * n, wv, n, eps);
                });
            });
        }
        return p.pass(() -> {
            float[] wv = NormKernels.vector(w);
            Primitives.rows(par, rows, n, size, (row, a, b) -> {
                x.load(row * n, a, 0, n);
                r.load(row * n, b, 0, n);
                for (int j = 0; j < n; j++) a[j] += b[j];
                h.store(row * n, a, 0, n);
                // The norm reads h as stored (rounded to the dtype), as the eager form does.
                h.load(row * n, a, 0, n);
                NormKernels.fusedRow(a, wv, a, n, eps);
                y.store(row * n, a, 0, n);
            });
        });
    }
}
