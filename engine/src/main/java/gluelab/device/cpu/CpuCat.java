package gluelab.device.cpu;

import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.Variant;
import gluelab.tensor.Tensor;

import java.lang.foreign.MemorySegment;
import java.util.Map;

final class CpuCat implements CpuKernels.OpKernels {
    @Override public Launch bind(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        long tokens = in.shape().tokens(), d = in.shape().dim("D"), ha = d / 2, hb = d - ha;
        Tensor a = t.get("a"), b = t.get("b"), out = t.get("out");
        Program p = new Program();
        if (in.variant() == Variant.EAGER) {
            // The framework's generic cat: each input converted through fp32 registers into the output.
            p.pass(() -> Primitives.rows(par, tokens, (int) d, (row, x, unused) -> {
                a.load(row * ha, x, 0, (int) ha);
                b.load(row * hb, x, (int) ha, (int) hb);
                out.store(row * d, x, 0, (int) d);
            }));
        } else {
            long es = out.dtype().bytes();
            p.pass(() -> par.range(tokens, 16, (from, to) -> {
                for (long row = from; row < to; row++) {
                    MemorySegment.copy(a.segment(), row * ha * es, out.segment(), row * d * es, ha * es);
                    MemorySegment.copy(b.segment(), row * hb * es, out.segment(), (row * d + ha) * es, hb * es);
                }
            }));
        }
        return p;
    }
}
