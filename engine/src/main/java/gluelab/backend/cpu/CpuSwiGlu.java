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

public final class CpuSwiGlu implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(OpId.of("swiglu")); }

    /** Elements per block of the loop. */
    @Override public List<KernelConfig> configs(OpInstance in) {
        return CpuKernels.sizes("cpu_swiglu_" + in.pass().id(), "block", Primitives.BLOCK, 1024, 2048, 4096, 16384, 32768, 65536, 131072);
    }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) { return fused(in, t, par, configs(in).getFirst()); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par, KernelConfig config) {
        int block = config.get("block");
        long n = in.shape().tokens() * in.shape().dim("F");
        Tensor g = t.get("gate"), u = t.get("up");
        Program p = new Program();
        if (in.pass() == Pass.FORWARD) {
            Tensor out = t.get("out");
            // Blocks are multiples of the vector length, so the lanes fall as in the float loops.
            if (NormKernels.onBf16Rows(g, u, out)) {
                MemorySegment gs = g.segment(), us = u.segment(), os = out.segment();
                return p.pass(() -> par.chunks(n, block, (from, to) -> Bf16Rows.swiglu(gs, us, os, from, to)));
            }
            return p.pass(() -> Primitives.blocks(par, n, block, (start, len, a, b, c, d) -> {
                g.load(start, a, 0, len);
                u.load(start, b, 0, len);
                if (NormKernels.VECTOR) VectorRows.swiglu(a, b, len);
                else for (int i = 0; i < len; i++) a[i] = a[i] / (1f + (float) Math.exp(-a[i])) * b[i];
                out.store(start, a, 0, len);
            }));
        }
        Tensor dy = t.get("dy"), dg = t.get("dgate"), du = t.get("dup");
        if (NormKernels.onBf16Rows(g, u, dy, dg, du)) {
            MemorySegment gs = g.segment(), us = u.segment(), ds = dy.segment(), dgs = dg.segment(), dus = du.segment();
            return p.pass(() -> par.range((n + block - 1) / block, 1, (first, last) -> {
                float[] sg = new float[block], k = new float[block];
                for (long b = first; b < last; b++) Bf16Rows.swigluBackward(gs, us, ds, dgs, dus, b * block, Math.min(n, (b + 1) * block), sg, k);
            }));
        }
        return p.pass(() -> Primitives.blocks(par, n, block, (start, len, a, b, up, d) -> {
            g.load(start, a, 0, len);
            u.load(start, up, 0, len);
            dy.load(start, d, 0, len);
            if (NormKernels.VECTOR) VectorRows.swigluBackward(a, b, up, d, len);
            else for (int i = 0; i < len; i++) {
                float x = a[i], sg = 1f / (1f + (float) Math.exp(-x));
                b[i] = d[i] * x * sg;
                a[i] = d[i] * up[i] * sg * (1 + x * (1 - sg));
            }
            du.store(start, b, 0, len);
            dg.store(start, a, 0, len);
        }));
    }
}
