package gluelab.device.cpu;

import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.device.cpu.Primitives.Binary;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.Tensor;

import java.util.Map;

final class CpuAddRmsNorm implements CpuKernels.OpKernels {
    @Override public Launch bind(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        long rows = in.shape().tokens();
        int n = (int) in.shape().dim("D");
        float eps = (float) in.shape().param("eps");
        Program p = new Program();
        Tensor w = t.get("w");
        if (in.pass() == Pass.FORWARD) {
            Tensor x = t.get("x"), r = t.get("r"), h = t.get("h"), y = t.get("y");
            if (in.variant() == Variant.EAGER) {
                p.pass(() -> Primitives.binary(par, Binary.ADD, x, r, h));
                NormKernels.eagerForward(p, par, h, w, y, rows, n, eps);
            } else {
                p.pass(() -> {
                    float[] wv = NormKernels.vector(w);
                    Primitives.rows(par, rows, n, (row, a, b) -> {
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
            return p;
        }
        Tensor h = t.get("h"), dy = t.get("dy"), dh = t.get("dh"), dx = t.get("dx"), dw = t.get("dw");
        if (in.variant() == Variant.EAGER) {
            Tensor dxn = p.scratch("dx_norm", h.dtype(), rows, n);
            NormKernels.eagerBackward(p, par, h, w, dy, dxn, dw, rows, n, eps);
            p.pass(() -> Primitives.binary(par, Binary.ADD, dxn, dh, dx));
            return p;
        }
        p.pass(() -> CpuRmsNorm.fusedBackward(par, h, w, dy, dh, dx, dw, rows, n, eps));
        return p;
    }
}
