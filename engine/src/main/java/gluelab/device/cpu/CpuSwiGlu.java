package gluelab.device.cpu;

import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.Pass;
import gluelab.tensor.Tensor;

import java.util.Map;

final class CpuSwiGlu implements CpuKernels.OpKernels {
    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        long n = in.shape().tokens() * in.shape().dim("F");
        Tensor g = t.get("gate"), u = t.get("up");
        Program p = new Program();
        if (in.pass() == Pass.FORWARD) {
            Tensor out = t.get("out");
            return p.pass(() -> Primitives.blocks(par, n, (start, len, a, b, c, d) -> {
                g.load(start, a, 0, len);
                u.load(start, b, 0, len);
                for (int i = 0; i < len; i++) a[i] = a[i] / (1f + (float) Math.exp(-a[i])) * b[i];
                out.store(start, a, 0, len);
            }));
        }
        Tensor dy = t.get("dy"), dg = t.get("dgate"), du = t.get("dup");
        return p.pass(() -> Primitives.blocks(par, n, (start, len, a, b, up, d) -> {
            g.load(start, a, 0, len);
            u.load(start, up, 0, len);
            dy.load(start, d, 0, len);
            for (int i = 0; i < len; i++) {
                float x = a[i], sg = 1f / (1f + (float) Math.exp(-x));
                b[i] = d[i] * x * sg;
                a[i] = d[i] * up[i] * sg * (1 + x * (1 - sg));
            }
            du.store(start, b, 0, len);
            dg.store(start, a, 0, len);
        }));
    }
}
