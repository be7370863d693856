package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.backend.eager.EagerOps;
import gluelab.ops.OpId;
import gluelab.tensor.DType;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.JCudaDriver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The FUSED variant of each catalogue op on the GPU: the kernel families by op id, and what every
 * family shares: the compile defines of a config and the launch set-up (the kernel loaded, its
 * shared memory raised, its resident wave computed). One kernel in one launch configuration per
 * op (plus a column sum where a weight gradient is reduced and the kernel does not finish it).
 */
final class FusedKernels {
    private FusedKernels() {}

    static final List<FusedFamily> FAMILIES = List.of(new NormFamily(), new QNormRopeFamily(), new SwigluCastFamily(), new CatFamily(),
            new RoutingFamily());

    private static final Map<OpId, FusedFamily> BY_OP = byOp();

    private static Map<OpId, FusedFamily> byOp() {
        Map<OpId, FusedFamily> m = new LinkedHashMap<>();
        for (FusedFamily f : FAMILIES) {
            for (OpId op : f.ops()) {
                FusedFamily before = m.put(op, f);
                if (before != null) throw new IllegalStateException("op " + op + " has two fused families: " + before.source() + " and " + f.source());
            }
        }
        return Map.copyOf(m);
    }

    static Optional<FusedFamily> family(OpId op) { return Optional.ofNullable(BY_OP.get(op)); }

    static Optional<FusedFamily> family(OpInstance in) { return family(OpId.of(in.op().name())); }

    static boolean activation(DType t) { return t == DType.BF16 || t == DType.FP32; }

    /** Valid configs, default first; empty where the op's fused form has no configured kernel (e.g. a cast that is not bf16 -> fp32). */
    static List<KernelConfig> configs(OpInstance in) {
        if (!activation(in.shape().dtype())) return List.of();
        return family(in).map(f -> f.configs(in)).orElse(List.of());
    }

    static FusedFamily require(OpInstance in) {
        return family(in).orElseThrow(() -> new IllegalArgumentException("the CUDA device has no fused kernel family for op '" + in.op().name()
                + "' (families: " + FAMILIES.stream().map(FusedFamily::source).toList() + ")"));
    }

    /**
     * The nvcc/NVRTC options that compile one configuration of the instance's kernel: the kernel's
     * section of its family's file, the activation type, the op's fixed choices and the config's
     * parameters.
     */
    static List<String> defines(OpInstance in, KernelConfig c) {
        List<String> d = new ArrayList<>();
        d.add("-DGLUE_" + (c.kernel().equals(SwigluCastFamily.CAST) ? "FUSED_CAST" : c.kernel().toUpperCase(Locale.ROOT)));
        d.add("-DCFG_DT=" + CudaCodes.dtype(in.shape().dtype()));
        d.addAll(require(in).choices(in));
        c.params().forEach((k, v) -> d.add("-DCFG_" + k.toUpperCase(Locale.ROOT) + "=" + v));
        return d;
    }

    static int sharedBytes(OpInstance in, KernelConfig c) { return require(in).sharedBytes(in, c); }

    static void build(OpInstance in, Map<String, CudaBuffer> t, CudaProgram p, CudaDevice d, KernelConfig c) {
        if (c == null) {
            // Only a cast that is not bf16 -> fp32 has no configured kernel: it is the eager cast.
            if (!in.op().name().equals("cast")) throw new IllegalArgumentException(in.label() + ": no kernel configuration for " + in.shape());
            new CudaEagerOps(p, d).unary(EagerOps.Unary.CAST, t.get("x"), t.get("y"), 0);
            return;
        }
        FusedFamily f = require(in);
        KernelLaunch.Function k = d.kernels().configured(in, c);
        int smem = f.sharedBytes(in, c);
        if (smem > 0) JCudaDriver.cuFuncSetAttribute(k.function(), CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
        int wave = d.sms() * residentBlocks(k, c.get("threads"), smem);
        f.launch(new FusedLaunch(in, t, p, d, c, k, smem, wave));
    }

    /** Blocks of this kernel that are resident on one SM at once (at least 1). */
    private static int residentBlocks(KernelLaunch.Function k, int threads, int sharedBytes) {
        int[] blocks = new int[1];
        JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, k.function(), threads, sharedBytes);
        return Math.max(1, blocks[0]);
    }

    // ---- what several families' spaces share

    static KernelConfig config(String kernel, Object... kv) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], (Integer) kv[i + 1]);
        return new KernelConfig(kernel, m);
    }

    /** Most dynamic shared memory a staged config may ask for (two blocks an SM still fit 228 KB). */
    static final int STAGED_BYTES = 100 * 1024;

    /** A staging ring's bytes: stages x tensors x 16-byte accesses a thread x threads (glue_staging.cuh). */
    static int stagedBytes(int stages, int tensors, int accesses, int threads) { return stages * tensors * accesses * threads * 16; }
}
