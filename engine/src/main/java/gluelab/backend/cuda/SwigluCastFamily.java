package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.backend.cuda.KernelLaunch.Args;
import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.tensor.DType;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * SwiGLU forward and backward, and the bf16 -> fp32 cast (swiglu_cast.cu): elementwise kernels, a
 * block per tile of threads x vec x unroll elements.
 */
final class SwigluCastFamily implements FusedFamily {
    static final String SWIGLU_FWD = "fused_swiglu_fwd", SWIGLU_BWD = "fused_swiglu_bwd", CAST = "fused_cast_bf16_f32";
    private static final OpId SWIGLU = OpId.of("swiglu"), CAST_OP = OpId.of("cast");

    @Override public String source() { return "swiglu_cast.cu"; }

    @Override public Set<OpId> ops() { return Set.of(SWIGLU, CAST_OP); }

    @Override public List<String> kernels() { return List.of(SWIGLU_FWD, SWIGLU_BWD, CAST); }

    @Override public List<KernelConfig> configs(OpInstance in) {
        var s = in.shape();
        int es = s.dtype().bytes();
        if (in.op().name().equals(SWIGLU.name())) {
            boolean fwd = in.pass() == Pass.FORWARD;
            return elementwise(fwd ? SWIGLU_FWD : SWIGLU_BWD, s.tokens() * s.dim("F"), es, fwd ? 32 : 16);
        }
        // Only bf16 -> fp32 has a kernel; other casts are the eager cast.
        return s.dtype() == DType.BF16 ? elementwise(CAST, s.tokens() * s.dim("D"), es, 32) : List.of();
    }

    @Override public void launch(FusedLaunch l) {
        var s = l.in().shape();
        if (l.in().op().name().equals(CAST_OP.name())) {
            long n = l.t("x").spec().elements();
            l.add(new Args().ptr("x", l.t("x")).ptr("y", l.t("y")).i64("n", n), l.tiles(n));
            return;
        }
        long n = s.tokens() * s.dim("F");
        Args a = l.in().pass() == Pass.FORWARD ? new Args().ptr("g", l.t("gate")).ptr("u", l.t("up")).ptr("out", l.t("out")).i64("n", n)
                : new Args().ptr("g", l.t("gate")).ptr("u", l.t("up")).ptr("dy", l.t("dy")).ptr("dg", l.t("dgate")).ptr("du", l.t("dup")).i64("n", n);
        l.add(a, l.tiles(n));
    }

    private static List<KernelConfig> elementwise(String kernel, long n, int es, int maxElems) {
        List<KernelConfig> out = new ArrayList<>();
        for (int vecBytes : new int[]{16, 32, 8}) {
            int vec = vecBytes / es;
            if (n % vec != 0) continue;
            for (int unroll : new int[]{2, 1, 4}) {
                if (vec * unroll > maxElems) continue;
                for (int threads : new int[]{256, 512, 128}) {
                    for (int cs : new int[]{0, 1}) out.add(FusedKernels.config(kernel, "threads", threads, "vec", vec, "unroll", unroll, "cs", cs));
                }
            }
        }
        return out;
    }

}
