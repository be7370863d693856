package gluelab.backend.cpu;

import gluelab.backend.eager.EagerOps.Unary;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.OpId;
import gluelab.ops.ScaleFixture;
import gluelab.tensor.Tensor;

import java.util.List;
import java.util.Map;

/** The fixture op's CPU kernel: one elementwise pass. */
public final class CpuScaleFixture implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(ScaleFixture.ID); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        float s = (float) in.shape().param("s");
        return new Program().pass(() -> Primitives.unary(par, Unary.MUL_SCALAR, t.get("x"), t.get("y"), s));
    }
}
