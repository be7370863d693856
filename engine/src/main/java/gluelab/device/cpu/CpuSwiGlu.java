package gluelab.device.cpu;

import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.device.cpu.Primitives.Binary;
import gluelab.device.cpu.Primitives.Unary;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.Tensor;

import java.util.Map;

final class CpuSwiGlu implements CpuKernels.OpKernels {
    @Override public Launch bind(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        long tokens = in.shape().tokens(), f = in.shape().dim("F"), n = tokens * f;
        Tensor g = t.get("gate"), u = t.get("up");
        Program p = new Program();
        if (in.pass() == Pass.FORWARD) {
            Tensor out = t.get("out");
            if (in.variant() == Variant.EAGER) {
                Tensor s = p.scratch("silu_gate", g.dtype(), tokens, f);
                p.pass(() -> Primitives.unary(par, Unary.SILU, g, s, 0)).pass(() -> Primitives.binary(par, Binary.MUL, s, u, out));
            } else {
                p.pass(() -> Primitives.blocks(par, n, (start, len, a, b, c, d) -> {
                    g.load(start, a, 0, len);
                    u.load(start, b, 0, len);
                    for (int i = 0; i < len; i++) a[i] = a[i] / (1f + (float) Math.exp(-a[i])) * b[i];
                    out.store(start, a, 0, len);
                }));
            }
            return p;
        }
        Tensor dy = t.get("dy"), dg = t.get("dgate"), du = t.get("dup");
        if (in.variant() == Variant.EAGER) {
            Tensor s = p.scratch("silu_gate", g.dtype(), tokens, f), ds = p.scratch("d_silu", g.dtype(), tokens, f);
            p.pass(() -> Primitives.unary(par, Unary.SILU, g, s, 0))
                    .pass(() -> Primitives.binary(par, Binary.MUL, dy, s, du))
                    .pass(() -> Primitives.binary(par, Binary.MUL, dy, u, ds))
                    .pass(() -> Primitives.blocks(par, n, (start, len, a, b, c, d) -> {
                        // silu_backward(grad, gate): one kernel in every framework
                        ds.load(start, a, 0, len);
                        g.load(start, b, 0, len);
                        for (int i = 0; i < len; i++) {
                            float sg = 1f / (1f + (float) Math.exp(-b[i]));
                            a[i] = a[i] * sg * (1 + b[i] * (1 - sg));
                        }
                        dg.store(start, a, 0, len);
                    }));
            return p;
        }
        p.pass(() -> Primitives.blocks(par, n, (start, len, a, b, c, d) -> {
            float[] up = c;
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
        return p;
    }
}
