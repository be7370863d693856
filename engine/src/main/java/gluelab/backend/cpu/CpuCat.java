package gluelab.backend.cpu;

import gluelab.ops.OpId;
import java.util.List;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.tensor.Tensor;

import java.lang.foreign.MemorySegment;
import java.util.Map;

/** Fused cat: whole row blocks copied byte for byte, no conversion through registers. */
public final class CpuCat implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(OpId.of("cat")); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        long tokens = in.shape().tokens(), d = in.shape().dim("D"), ha = d / 2, hb = d - ha;
        Tensor a = t.get("a"), b = t.get("b"), out = t.get("out");
        long es = out.dtype().bytes();
        return new Program().pass(() -> par.range(tokens, 16, (from, to) -> {
            for (long row = from; row < to; row++) {
                MemorySegment.copy(a.segment(), row * ha * es, out.segment(), row * d * es, ha * es);
                MemorySegment.copy(b.segment(), row * hb * es, out.segment(), (row * d + ha) * es, hb * es);
            }
        }));
    }
}
