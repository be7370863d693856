package gluelab.device.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.QNormRope;
import gluelab.tensor.DType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The declared launch-configuration space of every fused CUDA kernel, pruned by the instance's
 * shape (a vector width must divide the row, a row must fit the registers, ...), and the
 * preprocessor defines that compile one configuration of glue.cu. Needs no GPU: the spaces and
 * their compilation are tested on CI through nvcc. The first config of each space is the default,
 * used until a tuning picks another.
 */
final class FusedConfigs {
    private FusedConfigs() {}

    /** Kernel names (the extern "C" entry points). */
    static final String RMSNORM_FWD = "fused_rmsnorm_fwd", RMSNORM_BWD = "fused_rmsnorm_bwd", QNR_FWD = "fused_qnorm_rope_fwd",
            QNR_BWD = "fused_qnorm_rope_bwd", SWIGLU_FWD = "fused_swiglu_fwd", SWIGLU_BWD = "fused_swiglu_bwd", CAST = "fused_cast_bf16_f32",
            CAT = "fused_cat", ROUTING = "fused_routing";

    /**
     * Per-thread register budgets of the norms, in 32-bit words: the forward's row (x, r when added,
     * twice with the prefetch) and the backward's row (x, dy, the addend, twice with the prefetch)
     * plus its fp32 dw partial.
     */
    private static final int NORM_FWD_WORDS = 64, NORM_BWD_WORDS = 80, NORM_BWD_DW = 32;

    static boolean activation(DType t) { return t == DType.BF16 || t == DType.FP32; }

    /** Valid configs, default first; empty where the op's fused form has no configured kernel (e.g. a cast that is not bf16 -> fp32). */
    static List<KernelConfig> configs(OpInstance in) {
        OpShape s = in.shape();
        if (!activation(s.dtype())) return List.of();
        boolean fwd = in.pass() == Pass.FORWARD;
        int es = s.dtype().bytes();
        return switch (in.op().name()) {
            case "rmsnorm", "add_rmsnorm" -> {
                boolean add = in.op().name().equals("add_rmsnorm");
                yield fwd ? normForward((int) s.dim("D"), es, add) : normBackward((int) s.dim("D"), es, add);
            }
            case "qnorm_rope_complex", "qnorm_rope_real" -> qnormRope((int) s.dim("HD"), es, fwd);
            case "swiglu" -> elementwise(fwd ? SWIGLU_FWD : SWIGLU_BWD, s.tokens() * s.dim("F"), es, fwd ? 32 : 16);
            case "cast" -> s.dtype() == DType.BF16 ? elementwise(CAST, s.tokens() * s.dim("D"), es, 32) : List.of();
            case "cat" -> cat(s.dim("D"), es);
            case "moe_routing" -> routing((int) s.dim("E"), (int) s.dim("K"), es);
            default -> List.of();
        };
    }

    private static KernelConfig config(String kernel, Object... kv) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], (Integer) kv[i + 1]);
        return new KernelConfig(kernel, m);
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
                        out.add(config(RMSNORM_FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf));
                        // Streaming (evict-first) 16-byte loads and stores: every row is touched once.
                        if (pf == 1 && v == 0) out.add(config(RMSNORM_FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "cs", 1));
                        // One block per rpb rows instead of a persistent grid: the hardware balances the last
                        // rows, and few threads a row with several 16-byte accesses each keep the most bytes in
                        // flight (the H200's picks at 32k; streaming and 256-byte-L2-fetch forms of these lost).
                        if (pf == 0 && v == 0) out.add(config(RMSNORM_FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "persist", 0));
                    }
                    // Rows staged in shared memory (cp.async), two rows ahead, persistent grid (the backward's
                    // winner at 32k; in the forward 1-4% behind the one-block forms on the H200).
                    if (v == 0 && rpb <= 2 && threads >= 512 && cpt * words * (add ? 2 : 1) <= NORM_FWD_WORDS / 2
                            && stagedBytes(3, add ? 2 : 1, cpt, threads) <= STAGED_BYTES) {
                        out.add(config(RMSNORM_FWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", 0, "stages", 3));
                    }
                }
            }
        }
        return preferTwoChunks(out);
    }

    /** Most dynamic shared memory a staged norm config may ask for (two blocks an SM still fit 228 KB). */
    private static final int STAGED_BYTES = 100 * 1024;

    private static int stagedBytes(int stages, int tensors, int cpt, int threads) { return stages * tensors * cpt * threads * 16; }

    /**
     * Dynamic shared memory of a staged config: a norm's or q-norm's ring of 16-byte accesses
     * ({@code stages}: [stage][tensor][access][thread]); 0 for every other config.
     */
    static int stagedBytes(OpInstance in, KernelConfig c) {
        int stages = c.params().getOrDefault("stages", 0);
        if (stages == 0) return 0;
        int tensors = (in.pass() == Pass.FORWARD ? 1 : 2) + (in.op().name().equals("add_rmsnorm") ? 1 : 0);
        // q-norm + RoPE: a row's vec elements per thread, in 16-byte accesses.
        int accesses = c.params().containsKey("cpt") ? c.get("cpt") : c.get("vec") * in.shape().dtype().bytes() / 16;
        return stagedBytes(stages, tensors, accesses, c.get("threads"));
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
                        out.add(config(RMSNORM_BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "minb", 1));
                        // dw finished in the kernel, the grid's rows interleaved (below)
                        if (pf == 1 && rpb == 1 && n % 16 == 0) {
                            out.add(config(RMSNORM_BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "minb", 1, "dwfin", 1, "ileave", 1));
                        }
                        int capped = 65536 / (threads * 80);
                        if (pf == 1 && capped > 1) {
                            out.add(config(RMSNORM_BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", pf, "minb", capped));
                        }
                    }
                    // Rows staged in shared memory (cp.async), stages - 1 rows ahead (registers capped at 64 a
                    // thread lost on the H200: 3-10% behind).
                    if (v == 0 && rpb <= 2 && threads <= 512 && cpt * words * (add ? 3 : 2) + cpt * vec <= NORM_BWD_WORDS) {
                        for (int stages : new int[]{2, 3, 4}) {
                            if (stagedBytes(stages, add ? 3 : 2, cpt, threads) > STAGED_BYTES) continue;
                            out.add(config(RMSNORM_BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", 0, "minb", 1, "stages", stages));
                            // dw finished in the kernel (a grid barrier, then a column tile per block: one launch
                            // fewer, a partial row per block) and the grid's rows interleaved (block b: rows b,
                            // b + grid, ...: the rows in flight at once are neighbours). The H200's picks at 8k and
                            // 32k; each alone gained 1-2%, the two together 5-6%.
                            if (n % 16 == 0 && stages <= 3) {
                                out.add(config(RMSNORM_BWD, "threads", threads, "vec", vec, "cpt", cpt, "rpb", rpb, "pf", 0, "minb", 1, "stages", stages,
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
                        out.add(config(QNR_FWD, "threads", threads, "lanes", lanes, "vec", vec, "rpi", rpi));
                        // Registers capped at 64 a thread (32 warps an SM): more rows in flight per SM.
                        if (threads >= 128 && rpi == 2) {
                            out.add(config(QNR_FWD, "threads", threads, "lanes", lanes, "vec", vec, "rpi", rpi, "minb", 1024 / threads));
                        }
                    }
                    // Rows staged in shared memory (cp.async), stages - 1 rows ahead per group (the real form's
                    // pick on the H200; the complex form keeps lanes=8 vec=16 unstaged).
                    if (threads >= 128 && vec * es % 16 == 0) {
                        for (int stages : new int[]{3, 4, 6}) {
                            if (stagedBytes(stages, 1, vec * es / 16, threads) > STAGED_BYTES) continue;
                            out.add(config(QNR_FWD, "threads", threads, "lanes", lanes, "vec", vec, "rpi", 1, "stages", stages));
                        }
                    }
                } else {
                    for (int pf : new int[]{0, 1}) {
                        out.add(config(QNR_BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", pf));
                        // Registers capped at about 80 a thread: more groups in flight per SM.
                        if (threads >= 128) out.add(config(QNR_BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", pf, "minb", 65536 / (threads * 80)));
                        if (pf == 0 && threads <= 128 && vec * es >= 16) out.add(config(QNR_BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", pf, "l2pf", 1));
                    }
                    // Rows staged in shared memory (cp.async), stages - 1 rows ahead per group, and dw finished in
                    // the kernel after a grid barrier (no column-sum launches after it): the H200's picks at 8k and
                    // 32k (staged without dwfin 3-5% behind; dwfin on the unstaged forms 3-4%).
                    if (threads >= 128 && vec * es % 16 == 0 && hd % 4 == 0) {
                        for (int stages : new int[]{3, 4}) {
                            if (stagedBytes(stages, 2, vec * es / 16, threads) > STAGED_BYTES) continue;
                            out.add(config(QNR_BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", 0, "stages", stages, "dwfin", 1));
                            // registers capped at about 80 a thread (a row of 16 elements a thread takes ~120)
                            out.add(config(QNR_BWD, "threads", threads, "lanes", lanes, "vec", vec, "pf", 0, "minb", 65536 / (threads * 80),
                                    "stages", stages, "dwfin", 1));
                        }
                    }
                }
            }
        }
        return out;
    }

    private static List<KernelConfig> elementwise(String kernel, long n, int es, int maxElems) {
        List<KernelConfig> out = new ArrayList<>();
        for (int vecBytes : new int[]{16, 32, 8}) {
            int vec = vecBytes / es;
            if (n % vec != 0) continue;
            for (int unroll : new int[]{2, 1, 4}) {
                if (vec * unroll > maxElems) continue;
                for (int threads : new int[]{256, 512, 128}) {
                    for (int cs : new int[]{0, 1}) out.add(config(kernel, "threads", threads, "vec", vec, "unroll", unroll, "cs", cs));
                }
            }
        }
        return out;
    }

    private static List<KernelConfig> cat(long d, int es) {
        long ha = d / 2, hb = d - ha;
        List<KernelConfig> out = new ArrayList<>();
        for (int chunk : new int[]{16, 8, 4, 2}) {
            if ((ha * es) % chunk != 0 || (hb * es) % chunk != 0) continue;
            for (int threads : new int[]{256, 128, 512}) {
                for (int unroll : new int[]{2, 1, 4}) out.add(config(CAT, "threads", threads, "chunk", chunk, "unroll", unroll));
            }
        }
        // The output's pieces end to end, a tile per block (as a copy kernel), 16-byte pieces.
        if ((ha * es) % 16 == 0 && (hb * es) % 16 == 0) {
            for (int threads : new int[]{256, 128, 512}) {
                for (int unroll : new int[]{2, 1, 4}) out.add(config(CAT, "threads", threads, "chunk", 16, "unroll", unroll, "flat", 1));
            }
        }
        return out;
    }

    private static List<KernelConfig> routing(int e, int k, int es) {
        List<KernelConfig> out = new ArrayList<>();
        if (k > 32) return out;
        for (int lanes : new int[]{8, 16, 32, 4}) {
            if (e % lanes != 0) continue;
            int epl = e / lanes;
            if (epl > 32 || epl < k / lanes || (epl * es) % 2 != 0 || Integer.bitCount(epl) != 1) continue;
            for (int threads : new int[]{128, 256, 64}) out.add(config(ROUTING, "threads", threads, "lanes", lanes, "epl", epl));
        }
        return out;
    }

    /**
     * The nvcc/NVRTC options that compile one configuration of the instance's kernel: the kernel's
     * section, the activation type, the instance's fixed choices (residual add, RoPE form, score,
     * k) and the config's parameters.
     */
    static List<String> defines(OpInstance in, KernelConfig c) {
        OpShape s = in.shape();
        List<String> d = new ArrayList<>();
        d.add("-DGLUE_CONFIG");
        d.add("-DGLUE_" + (c.kernel().equals(CAST) ? "FUSED_CAST" : c.kernel().toUpperCase(java.util.Locale.ROOT)));
        d.add("-DCFG_DT=" + CudaCodes.dtype(s.dtype()));
        switch (in.op().name()) {
            case "rmsnorm" -> d.add("-DCFG_ADD=0");
            case "add_rmsnorm" -> d.add("-DCFG_ADD=1");
            case "qnorm_rope_complex", "qnorm_rope_real" -> d.add("-DCFG_COMPLEX=" + (((QNormRope) in.op()).form() == QNormRope.Form.COMPLEX ? 1 : 0));
            case "moe_routing" -> {
                d.add("-DCFG_K=" + s.dim("K"));
                d.add("-DCFG_SOFTMAX=" + (s.text("score").equals("softmax") ? 1 : 0));
            }
            default -> { }
        }
        c.params().forEach((k, v) -> d.add("-DCFG_" + k.toUpperCase(java.util.Locale.ROOT) + "=" + v));
        return d;
    }
}
