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
 * RMSNorm and add + RMSNorm, forward and backward (rmsnorm.cu): a row per group of threads held in
 * registers, persistent grids of one resident wave (or a block per row group), rows prefetched into
 * registers or staged in shared memory, the backward's dw partials summed by column-sum launches or
 * finished in the kernel.
 */
final class NormFamily implements FusedFamily {
    static final String FWD = "fused_rmsnorm_fwd", BWD = "fused_rmsnorm_bwd";
    private static final OpId RMSNORM = OpId.of("rmsnorm"), ADD_RMSNORM = OpId.of("add_rmsnorm");

    /**
     * Per-thread register budgets of the norms, in 32-bit words: the forward's row (x, r when added,
     * twice with the prefetch) and the backward's row (x, dy, the addend, twice with the prefetch)
     * plus its fp32 dw partial.
     */
    private static final int NORM_FWD_WORDS = 64, NORM_BWD_WORDS = 80, NORM_BWD_DW = 32;

    @Override public String source() { return "rmsnorm.cu"; }

    @Override public boolean usesBase() { return true; }

    @Override public Set<OpId> ops() { return Set.of(RMSNORM, ADD_RMSNORM); }

    @Override public List<String> kernels() { return List.of(FWD, BWD); }

    private static boolean add(OpInstance in) { return in.op().name().equals(ADD_RMSNORM.name()); }

    @Override public List<KernelConfig> configs(OpInstance in) {
        int n = (int) in.shape().dim("D"), es = in.shape().dtype().bytes();
        return in.pass() == Pass.FORWARD ? normForward(n, es, add(in)) : normBackward(n, es, add(in));
    }

    @Override public List<String> choices(OpInstance in) { return List.of("-DCFG_ADD=" + (add(in) ? 1 : 0)); }

    /** The staging ring: [stage][tensor][access][thread] of 16-byte accesses. */
    @Override public int sharedBytes(OpInstance in, KernelConfig c) {
        int stages = c.params().getOrDefault("stages", 0);
        if (stages == 0) return 0;
        int tensors = (in.pass() == Pass.FORWARD ? 1 : 2) + (add(in) ? 1 : 0);
        return FusedKernels.stagedBytes(stages, tensors, c.get("cpt"), c.get("threads"));
    }

    @Override public void launch(FusedLaunch l) {
        var s = l.in().shape();
        var c = l.config();
        boolean add = add(l.in());
        long rows = s.tokens();
        int n = (int) s.dim("D");
        float eps = (float) s.param("eps");
        int together = l.param("rpb", 1);
        long groups = (rows + together - 1) / together;
        if (l.in().pass() == Pass.FORWARD) {
            long blocks = l.param("persist", 1) == 0 ? groups : Math.min(groups, l.wave());
            Args a = new Args().ptr("x", l.t("x")).ptrOrNull("r", add ? l.t("r") : null).ptr("w", l.t("w")).ptrOrNull("h", add ? l.t("h") : null)
                    .ptr("y", l.t("y")).i64("rows", rows).i32("n", n).f32("eps", eps);
            l.add(a, (int) blocks);
        } else {
            long blocks = Math.min(groups, l.wave());
            // Block b handles rows [b*rpb, (b+1)*rpb), `together` at a time, one dw partial per row
            // group (per block where the kernel finishes dw itself: dwfin).
            long rpb = (rows + blocks - 1) / blocks, parts = (rows + rpb - 1) / rpb;
            boolean finish = l.finishesDw();
            CudaBuffer partial = l.program().scratch("dw_partial", DType.FP32, finish ? parts : parts * together, n);
            Args a = new Args().ptr("x", l.t(add ? "h" : "x")).ptr("w", l.t("w")).ptr("dy", l.t("dy")).ptrOrNull("addend", add ? l.t("dh") : null)
                    .ptr("dx", l.t("dx")).ptr("partial", partial).i64("rows", rows).i32("n", n).i64("rpb", rpb).f32("eps", eps).ptr("dwo", l.t("dw"))
                    .ptrOrNull("bar", finish ? l.gridBarrier() : null);
            l.add(a, (int) parts);
            if (!finish) l.device().columnSum(l.program(), partial, parts * together, n, l.t("dw"));
        }
    }

    /** Elements per access for 16, 8 and 4 bytes (bf16: 8, 4, 2; fp32: 4, 2, 1). */
    private static int[] vecs(int es) { return new int[]{16 / es, 8 / es, 4 / es}; }

    /**
     * A norm row split over {@code lanes} threads in accesses of {@code vec} elements: accesses per
     * thread, or 0 when the split leaves threads idle (more than half of them without an access).
     */
    private static int accessesPerThread(int n, int vec, int lanes) {
        int chunks = n / vec, cpt = (chunks + lanes - 1) / lanes;
        return cpt == 1 && lanes >= 2 * chunks && lanes > 32 ? 0 : cpt;
    }

    /**
     * Threads per block x rows per block (threads per row = threads / rpb, a warp or more) x the
     * prefetch of the next row (with or without streaming accesses) or a block per rpb rows
     * (persist=0: no persistent loop, the hardware schedules the blocks), 16-byte accesses; 8-byte
     * accesses one row per block. Rows are held as raw words (a bf16 pair per word), within
     * {@link #NORM_FWD_WORDS}.
     */
    private static List<KernelConfig> normForward(int n, int es, boolean add) {
        List<KernelConfig> out = new ArrayList<>();
        int[] vecs = vecs(es);
        for (int v = 0; v < 2; v++) {
            int vec = vecs[v], words = Math.max(1, vec * es / 4);
            if (n % vec != 0) continue;
            for (int threads : new int[]{256, 128, 512, 1024, 64}) {
                for (int rpb : v == 0 ? new int[]{1, 2, 4, 8, 16} : new int[]{1}) {
                    int lanes = threads / rpb;
                    if (lanes < 32) continue;
                    int cpt = accessesPerThread(n, vec, lanes);
                    if (cpt == 0) continue;
                    for (int pf : new int[]{0, 1}) {
                        // 1024 threads leave 64 registers a thread: half the budget.
                        if (cpt * words * (add ? 2 : 1) * (pf + 1) > (threads == 1024 ? NORM_FWD_WORDS / 2 : NORM_FWD_WORDS)) continue;
                        out.add(FusedKernels.config(FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf));
                        // Streaming (evict-first) 16-byte loads and stores: every row is touched once.
                        if (pf == 1 && v == 0) out.add(FusedKernels.config(FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "cs", 1));
                        // One block per rpb rows instead of a persistent grid: the hardware balances the last
                        // rows, and few threads a row with several 16-byte accesses each keep the most bytes in
                        // flight (the H200's picks at 32k; streaming and 256-byte-L2-fetch forms of these lost).
                        if (pf == 0 && v == 0) out.add(FusedKernels.config(FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "persist", 0));
                    }
                    // Rows staged in shared memory (cp.async), two rows ahead, persistent grid (the backward's
                    // winner at 32k; in the forward 1-4% behind the one-block forms on the H200).
                    if (v == 0 && rpb <= 2 && threads >= 512 && cpt * words * (add ? 2 : 1) <= NORM_FWD_WORDS / 2
                            && FusedKernels.stagedBytes(3, add ? 2 : 1, cpt, threads) <= FusedKernels.STAGED_BYTES) {
                        out.add(FusedKernels.config(FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", 0, "stages", 3));
                    }
                }
            }
        }
        return preferTwoChunks(out);
    }

    /**
     * As the forward, with at least 128 threads per row (the dw partial is per thread) and, for
     * the prefetching forms, a variant whose registers are capped at about 80 a thread (more blocks per SM).
     */
    private static List<KernelConfig> normBackward(int n, int es, boolean add) {
        List<KernelConfig> out = new ArrayList<>();
        int[] vecs = vecs(es);
        for (int v = 0; v < 2; v++) {
            int vec = vecs[v], words = Math.max(1, vec * es / 4);
            if (n % vec != 0) continue;
            for (int threads : new int[]{256, 128, 512, 1024}) {
                for (int rpb : v == 0 ? new int[]{1, 2, 4} : new int[]{1}) {
                    int lanes = threads / rpb;
                    if (lanes < 128) continue;
                    int cpt = accessesPerThread(n, vec, lanes);
                    if (cpt == 0 || cpt * vec > NORM_BWD_DW) continue;
                    for (int pf : new int[]{1, 0}) {
                        if (cpt * words * (add ? 3 : 2) * (pf + 1) + cpt * vec > NORM_BWD_WORDS) continue;
                        out.add(FusedKernels.config(BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "minb", 1));
                        // dw finished in the kernel, the grid's rows interleaved (below)
                        if (pf == 1 && rpb == 1 && n % 16 == 0) {
                            out.add(FusedKernels.config(BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "minb", 1, "dwfin", 1, "ileave", 1));
                        }
                        int capped = 65536 / (threads * 80);
                        if (pf == 1 && capped > 1) {
                            out.add(FusedKernels.config(BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "minb", capped));
                        }
                    }
                    // Rows staged in shared memory (cp.async), stages - 1 rows ahead (registers capped at 64 a
                    // thread lost on the H200: 3-10% behind).
                    if (v == 0 && rpb <= 2 && threads <= 512 && cpt * words * (add ? 3 : 2) + cpt * vec <= NORM_BWD_WORDS) {
                        for (int stages : new int[]{2, 3, 4}) {
                            if (FusedKernels.stagedBytes(stages, add ? 3 : 2, cpt, threads) > FusedKernels.STAGED_BYTES) continue;
                            out.add(FusedKernels.config(BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", 0, "minb", 1, "stages", stages));
                            // dw finished in the kernel (a grid barrier, then a column tile per block: one launch
                            // fewer, a partial row per block) and the grid's rows interleaved (block b: rows b,
                            // b + grid, ...: the rows in flight at once are neighbours). The H200's picks at 8k and
                            // 32k; each alone gained 1-2%, the two together 5-6%.
                            if (n % 16 == 0 && stages <= 3) {
                                out.add(FusedKernels.config(BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", 0, "minb", 1, "stages", stages,
                                        "dwfin", 1, "ileave", 1));
                            }
                        }
                    }
                }
            }
        }
        return preferTwoChunks(out);
    }

    /** The default: 16-byte accesses, one row per block, two accesses per thread where the row allows (then one, then more). */
    private static List<KernelConfig> preferTwoChunks(List<KernelConfig> list) {
        List<KernelConfig> sorted = new ArrayList<>(list);
        sorted.sort(java.util.Comparator.comparingInt((KernelConfig c) -> -c.get("vec"))
                .thenComparingInt(c -> c.get("rpb"))
                .thenComparingInt(c -> c.get("cpt") == 2 ? 0 : c.get("cpt") == 1 ? 1 : 2 + c.get("cpt")));
        return sorted;
    }
}
