package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.backend.cuda.KernelLaunch.Args;
import gluelab.ops.OpId;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** cat of two halves along the last dimension (cat.cu): blocks loop over rows, or a tile of the output's pieces per block (flat). */
final class CatFamily implements FusedFamily {
    static final String CAT = "fused_cat";

    @Override public String source() { return "cat.cu"; }

    @Override public Set<OpId> ops() { return Set.of(OpId.of("cat")); }

    @Override public List<String> kernels() { return List.of(CAT); }

    @Override public List<KernelConfig> configs(OpInstance in) { return cat(in.shape().dim("D"), in.shape().dtype().bytes()); }

    @Override public void launch(FusedLaunch l) {
        var s = l.in().shape();
        long dd = s.dim("D"), ha = dd / 2, hb = dd - ha, es = s.dtype().bytes(), rows = s.tokens();
        // flat=1: a block per tile of the output's pieces (rows end to end); else blocks loop over rows.
        long pieces = rows * dd * es / l.config().get("chunk"), tile = (long) l.threads() * l.config().get("unroll");
        int grid = l.param("flat", 0) == 1 ? (int) ((pieces + tile - 1) / tile) : (int) Math.min(rows, l.wave() * 4L);
        l.add(new Args().ptr("a", l.t("a")).ptr("b", l.t("b")).ptr("out", l.t("out")).i64("rows", rows).i64("ha_bytes", ha * es).i64("hb_bytes", hb * es), grid);
    }

    private static List<KernelConfig> cat(long d, int es) {
        long ha = d / 2, hb = d - ha;
        List<KernelConfig> out = new ArrayList<>();
        for (int chunk : new int[]{16, 8, 4, 2}) {
            if ((ha * es) % chunk != 0 || (hb * es) % chunk != 0) continue;
            for (int threads : new int[]{256, 128, 512}) {
                for (int unroll : new int[]{2, 1, 4}) out.add(FusedKernels.config(CAT, "threads", threads, "chunk", chunk, "unroll", unroll));
            }
        }
        // The output's pieces end to end, a tile per block (as a copy kernel), 16-byte pieces.
        if ((ha * es) % 16 == 0 && (hb * es) % 16 == 0) {
            for (int threads : new int[]{256, 128, 512}) {
                for (int unroll : new int[]{2, 1, 4}) out.add(FusedKernels.config(CAT, "threads", threads, "chunk", 16, "unroll", unroll, "flat", 1));
            }
        }
        return out;
    }

}
