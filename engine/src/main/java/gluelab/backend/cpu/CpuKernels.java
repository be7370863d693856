package gluelab.backend.cpu;

import gluelab.device.KernelConfig;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.GlueOp;
import gluelab.ops.OpId;
import gluelab.ops.OpRegistry;
import gluelab.tensor.Tensor;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Fused CPU implementations of the catalogue, keyed by op (eager ones come from EagerChains). Each
 * op's kernels are one class listed in {@code META-INF/services/gluelab.backend.cpu.CpuKernels$OpKernels}.
 */
public final class CpuKernels {
    private static final OpRegistry<OpKernels> REGISTRY = registry(CpuKernels.class.getClassLoader());

    /** Builds the fused launch of one op instance over bound tensors (inputs and outputs by name). */
    public interface OpKernels {
        /** The ops these kernels implement. */
        List<OpId> ops();

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

    /** The CPU kernels registry: every op's kernels found on the class path. */
    public static OpRegistry<OpKernels> registry() { return REGISTRY; }

    /** The kernels listed in the service files {@code loader} sees. */
    public static OpRegistry<OpKernels> registry(ClassLoader loader) { return registry(ServiceLoader.load(OpKernels.class, loader)); }

    /** A registry of the given kernels (the tests build one without an entry). */
    public static OpRegistry<OpKernels> registry(Iterable<OpKernels> kernels) {
        OpRegistry.Builder<OpKernels> b = OpRegistry.builder("CPU kernels");
        for (OpKernels k : kernels) for (OpId op : k.ops()) b.add(op, k);
        return b.build();
    }

    static OpKernels forOp(GlueOp op) { return REGISTRY.get(op.id()); }
}
