package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.backend.cuda.KernelLaunch.Args;
import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.ops.QNormRope;
import gluelab.tensor.DType;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * q RMSNorm + RoPE, forward and backward, complex or real form (qnorm_rope.cu): LANES threads a row
 * of one head, rows prefetched or staged in shared memory, the backward's rows in a contiguous run
 * per group or interleaved across the grid (ileave), its dw finished by a column-sum launch or in
 * the kernel.
 */
final class QNormRopeFamily implements FusedFamily {
    static final String FWD = "fused_qnorm_rope_fwd", BWD = "fused_qnorm_rope_bwd";

    @Override public String source() { return "qnorm_rope.cu"; }

    @Override public boolean usesBase() { return true; }

    @Override public Set<OpId> ops() { return Set.of(OpId.of("qnorm_rope_complex"), OpId.of("qnorm_rope_real")); }

    @Override public List<String> kernels() { return List.of(FWD, BWD); }

    @Override public List<KernelConfig> configs(OpInstance in) {
        return qnormRope((int) in.shape().dim("HD"), in.shape().dtype().bytes(), in.pass() == Pass.FORWARD);
    }

    private static boolean complex(OpInstance in) { return ((QNormRope) in.op()).form() == QNormRope.Form.COMPLEX; }

    /** The form, and the heads a token has: the kernel divides by it per row, cheaper by a constant. */
    @Override public List<String> choices(OpInstance in) {
        return List.of("-DCFG_COMPLEX=" + (complex(in) ? 1 : 0), "-DCFG_HEADS=" + in.shape().dim("H"));
    }

    /** The staging ring: a row's vec elements a thread in 16-byte accesses, q (and dy in the backward). */
    @Override public int sharedBytes(OpInstance in, KernelConfig c) {
        int stages = c.params().getOrDefault("stages", 0);
        if (stages == 0) return 0;
        return FusedKernels.stagedBytes(stages, in.pass() == Pass.FORWARD ? 1 : 2, c.get("vec") * in.shape().dtype().bytes() / 16, c.get("threads"));
    }

    @Override public void launch(FusedLaunch l) {
        var s = l.in().shape();
        long heads = s.dim("H"), rows = s.tokens() * heads;
        int hd = (int) s.dim("HD"), lanes = l.config().get("lanes"), threads = l.threads();
        // The kernel's row length is lanes x vec at compile time.
        if (lanes * l.config().get("vec") != hd) throw new IllegalArgumentException("config " + l.config() + " does not cover a row of HD=" + hd);
        float eps = (float) s.param("eps");
        boolean complex = complex(l.in());
        Args a = new Args().ptr("q", l.t("q")).ptr("w", l.t("w")).ptrOrNull("freqs", complex ? l.t("freqs") : null)
                .ptrOrNull("cosv", complex ? null : l.t("cos")).ptrOrNull("sinv", complex ? null : l.t("sin"));
        long groupsPerBlock = threads / lanes;
        if (l.in().pass() == Pass.FORWARD) {
            long rowsPerBlock = groupsPerBlock * l.config().get("rpi");
            int grid = (int) Math.min((rows + rowsPerBlock - 1) / rowsPerBlock, l.wave());
            l.add(a.ptr("out", l.t("out")).i64("rows", rows).i64("heads", heads).i32("hd", hd).f32("eps", eps), grid);
        } else {
            long groups0 = Math.min(rows, (long) l.wave() * groupsPerBlock), rpg = (rows + groups0 - 1) / groups0;
            long blocks = ((rows + rpg - 1) / rpg + groupsPerBlock - 1) / groupsPerBlock;
            // One dw partial per block: the kernel sums its row groups' partials first.
            CudaBuffer partial = l.program().scratch("dw_partial", DType.FP32, blocks, hd);
            boolean finish = l.finishesDw();
            a.ptr("dy", l.t("dy")).ptr("dq", l.t("dq")).ptr("partial", partial).i64("rows", rows).i64("heads", heads).i32("hd", hd).i64("rpg", rpg)
                    .f32("eps", eps).ptr("dwo", l.t("dw")).ptrOrNull("bar", finish ? l.gridBarrier() : null);
            l.add(a, (int) blocks);
            if (!finish) l.device().columnSum(l.program(), partial, blocks, hd, l.t("dw"));
        }
    }

    private static List<KernelConfig> qnormRope(int hd, int es, boolean fwd) {
        List<KernelConfig> out = new ArrayList<>();
        for (int lanes : new int[]{16, 32, 8, 4}) {
            if (hd % lanes != 0) continue;
            int vec = hd / lanes;
            if (vec % 2 != 0 || vec > 16 || (vec * es) % 4 != 0) continue;
            for (int threads : new int[]{128, 256, 64}) {
                if (fwd) {
                    for (int rpi : new int[]{2, 1, 4}) {
                        if (vec * rpi > 32) continue;
                        out.add(FusedKernels.config(FWD, "threads", threads, "lanes", lanes, "vec", vec, "rpi", rpi));
                        // Registers capped at 64 a thread (32 warps an SM): more rows in flight per SM. One row at a
                        // time (rpi=1) fits 64 without spills where the compiler takes 75 (24 warps an SM).
                        if (rpi <= 2) {
                            out.add(FusedKernels.config(FWD, "threads", threads, "lanes", lanes, "vec", vec, "rpi", rpi, "minb", 1024 / threads));
                        }
                    }
                    // Rows staged in shared memory (cp.async), stages - 1 rows ahead per group (the real form's
                    // pick on the H200; the complex form keeps lanes=8 vec=16 unstaged).
                    if (threads >= 128 && vec * es % 16 == 0) {
                        for (int stages : new int[]{3, 4, 6}) {
                            if (FusedKernels.stagedBytes(stages, 1, vec * es / 16, threads) > FusedKernels.STAGED_BYTES) continue;
                            out.add(FusedKernels.config(FWD, "threads", threads, "lanes", lanes, "vec", vec, "rpi", 1, "stages", stages));
                        }
                    }
                } else {
                    for (int pf : new int[]{0, 1}) {
                        out.add(FusedKernels.config(BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", pf));
                        // Registers capped at about 80 a thread: more groups in flight per SM.
                        if (threads >= 128) out.add(FusedKernels.config(BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", pf, "minb", 65536 / (threads * 80)));
                        if (pf == 0 && threads <= 128 && vec * es >= 16) out.add(FusedKernels.config(BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", pf, "l2pf", 1));
                    }
                    // The generated region's form: rows interleaved across the grid, the next row prefetched as raw
                    // words, registers capped at 64 a thread (4 blocks of 256 an SM); dw after the kernel or in it.
                    // With the row's geometry fixed at compile time it is the H200's pick at 2k-32k (205.4 us at 32k,
                    // the region's 207.9).
                    if (threads >= 128 && vec * es <= 16) {
                        out.add(FusedKernels.config(BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", 1, "minb", 65536 / (threads * 64), "ileave", 1));
                        out.add(FusedKernels.config(BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", 1, "minb", 65536 / (threads * 64), "ileave", 1,
                                "dwfin", 1));
                    }
                    // Rows staged in shared memory (cp.async), stages - 1 rows ahead per group, and dw finished in
                    // the kernel after a grid barrier (no column-sum launches after it): the H200's picks at 8k and
                    // 32k (staged without dwfin 3-5% behind; dwfin on the unstaged forms 3-4%).
                    if (threads >= 128 && vec * es % 16 == 0 && hd % 4 == 0) {
                        for (int stages : new int[]{3, 4}) {
                            if (FusedKernels.stagedBytes(stages, 2, vec * es / 16, threads) > FusedKernels.STAGED_BYTES) continue;
                            out.add(FusedKernels.config(BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", 0, "stages", stages, "dwfin", 1));
                            // registers capped at about 80 a thread (a row of 16 elements a thread takes ~120)
                            out.add(FusedKernels.config(BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", 0, "minb", 65536 / (threads * 80),
                                    "stages", stages, "dwfin", 1));
                        }
                    }
                }
            }
        }
        return out;
    }

}
