package gluelab.device.cpu;

import gluelab.device.KernelConfig;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.GlueOp;
import gluelab.tensor.Tensor;

import java.util.List;
import java.util.Map;

/** Fused CPU implementations of the catalogue, by op name (eager ones come from EagerChains). */
final class CpuKernels {
    /** Builds the fused launch of one op instance over bound tensors (inputs and outputs by name). */
    interface OpKernels {
        Launch fused(OpInstance instance, Map<String, Tensor> t, CpuParallel par);

        /** The fused loop's configurations (block sizes), default first; empty where it has none. */
        default List<KernelConfig> configs(OpInstance instance) { return List.of(); }

        /** The fused launch in one of {@link #configs}; kernels without configs ignore it. */
        default Launch fused(OpInstance instance, Map<String, Tensor> t, CpuParallel par, KernelConfig config) { return fused(instance, t, par); }
    }

    /** One config per size, parameter {@code name}, default first. */
    static List<KernelConfig> sizes(String kernel, String name, int... values) {
        List<KernelConfig> out = new java.util.ArrayList<>();
        for (int v : values) out.add(new KernelConfig(kernel, Map.of(name, v)));
        return out;
    }

    private CpuKernels() {}

    static OpKernels forOp(GlueOp op) {
        return switch (op.name()) {
            case "rmsnorm" -> new CpuRmsNorm();
            case "add_rmsnorm" -> new CpuAddRmsNorm();
            case "qnorm_rope_complex", "qnorm_rope_real" -> new CpuQNormRope();
            case "swiglu" -> new CpuSwiGlu();
            case "moe_routing" -> new CpuRouting();
            case "cat" -> new CpuCat();
            case "cast" -> new CpuCast();
            default -> throw new IllegalArgumentException("the CPU device has no kernels for op '" + op.name() + "'");
        };
    }
}
