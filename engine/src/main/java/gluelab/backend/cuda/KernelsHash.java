package gluelab.backend.cuda;

import gluelab.ops.OpId;

import java.util.Map;
import java.util.TreeMap;

/**
 * The hashes of the fused kernels' CUDA sources, as tuning keys and shipped picks name them
 * ("kernels@<hash>"): one per kernel family (its file, the headers it includes, and base.cu where it
 * launches base.cu's kernels), so a change to one family's file voids that family's picks only; and
 * one over all of them, which the generated regions' tuning keys carry.
 */
public final class KernelsHash {
    private KernelsHash() {}

    /** The hash over every family's sources this gluelab carries (or those under GLUELAB_KERNEL_SOURCES); needs no GPU. */
    public static String current() { return all(new KernelSources()); }

    /** Each fused op's family source hash, by op. */
    public static Map<OpId, String> byOp() { return byOp(new KernelSources()); }

    static String all(KernelSources sources) {
        return sources.digestOf(FusedKernels.FAMILIES.stream().map(FusedFamily::source).toList()).substring(0, 16);
    }

    static String of(KernelSources sources, FusedFamily f) { return sources.familyDigest(f.source(), f.usesBase()).substring(0, 16); }

    static Map<OpId, String> byOp(KernelSources sources) {
        Map<OpId, String> m = new TreeMap<>();
        for (FusedFamily f : FusedKernels.FAMILIES) {
            String h = of(sources, f);
            for (OpId op : f.ops()) m.put(op, h);
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
