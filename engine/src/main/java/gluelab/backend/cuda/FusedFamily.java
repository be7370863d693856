package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.ops.OpId;

import java.util.List;
import java.util.Set;

/**
 * One family of fused CUDA kernels: the CUDA file that holds them, the ops they serve, their
 * declared launch-configuration space (pruned by the instance's shape; the first config is the
 * default, used until a tuning picks another), the defines that fix the op's choices, and the
 * launch. Registered in {@link FusedKernels} by {@link OpId}. Needs no GPU but to launch: the
 * spaces and their compilation are tested on CI through nvcc.
 */
interface FusedFamily {
    /** The family's file in kernels/src/main/cuda. */
    String source();

    /** Whether a launch of the family runs one of base.cu's kernels too (the column sum that finishes a dw): base.cu is then part of its source hash. */
    default boolean usesBase() { return false; }

    /** The ops whose FUSED variant this family runs. */
    Set<OpId> ops();

    /** The extern "C" entry points this family launches (checked against its source by a test). */
    List<String> kernels();

    /** Valid configs of an activation-typed instance (bf16 or fp32), default first; empty where the family has no kernel for it. */
    List<KernelConfig> configs(OpInstance in);

    /** The op's fixed choices as -D options (residual add, RoPE form, score, k). */
    default List<String> choices(OpInstance in) { return List.of(); }

    /** Dynamic shared memory the config's kernel asks for (a staging ring); 0 for most. */
    default int sharedBytes(OpInstance in, KernelConfig c) { return 0; }

    /** Adds the config's launches to the program. */
    void launch(FusedLaunch l);
}
