package gluelab.backend.cuda;

/** The hash of the fused kernels' CUDA sources, as tuning keys and shipped picks name them ("kernels@<hash>"). */
public final class KernelsHash {
    private KernelsHash() {}

    /** The hash of the sources this gluelab carries (or those under GLUELAB_KERNEL_SOURCES); needs no GPU. */
    public static String current() { return CudaTuning.sourceHash(new KernelSources()); }
}
