package gluelab.backend.cpu;

import gluelab.ops.OpId;
import java.util.List;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.backend.eager.EagerOps.Unary;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

public final class CpuCast implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(OpId.of("cast")); }

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        Tensor x = t.get("x"), y = t.get("y");
        long n = x.elements();
        Program p = new Program();
        if (x.dtype() != DType.BF16) return p.pass(() -> Primitives.unary(par, Unary.CAST, x, y, 0));
        // bf16 -> fp32 is a 16-bit shift: no float conversion, straight from memory to memory.
        return p.pass(() -> par.range(n, 1 << 15, (from, to) -> {
            MemorySegment src = x.segment(), dst = y.segment();
            for (long i = from; i < to; i++) dst.setAtIndex(INT, i, (src.getAtIndex(SHORT, i) & 0xffff) << 16);
        }));
    }
}
