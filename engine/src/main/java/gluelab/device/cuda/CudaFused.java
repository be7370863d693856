package gluelab.device.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.device.cuda.KernelLaunch.Args;
import gluelab.device.eager.EagerOps;
import gluelab.ops.Pass;
import gluelab.ops.QNormRope;
import gluelab.tensor.DType;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.JCudaDriver;

import java.util.Map;

/**
 * The FUSED variant of each catalogue op on the GPU: one kernel in one launch configuration (plus
 * a column sum where a weight gradient is reduced). Grids are sized from the config: one resident
 * wave for the kernels that loop (norms, RoPE, routing: SMs x the blocks of this kernel that fit an SM,
 * as the driver computes from its registers and shared memory, so no block waits for a second
 * round), one tile per block for the elementwise ones.
 */
final class CudaFused {
    private CudaFused() {}

    static void build(OpInstance in, Map<String, CudaBuffer> t, CudaProgram p, CudaDevice d, KernelConfig c) {
        var s = in.shape();
        boolean fwd = in.pass() == Pass.FORWARD;
        if (c == null) {
            // Only a cast that is not bf16 -> fp32 has no configured kernel: it is the eager cast.
            if (!in.op().name().equals("cast")) throw new IllegalArgumentException(in.label() + ": no kernel configuration for " + s);
            new CudaEagerOps(p, d).unary(EagerOps.Unary.CAST, t.get("x"), t.get("y"), 0);
            return;
        }
        int threads = c.get("threads");
        KernelLaunch.Function k = d.kernels().configured(in, c);
        int smem = FusedConfigs.stagedBytes(in, c);
        if (smem > 0) JCudaDriver.cuFuncSetAttribute(k.function(), CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
        int wave = d.sms() * residentBlocks(k, threads, smem);
        switch (in.op().name()) {
            case "rmsnorm", "add_rmsnorm" -> {
                long rows = s.tokens();
                int n = (int) s.dim("D");
                float eps = (float) s.param("eps");
                boolean add = in.op().name().equals("add_rmsnorm");
                int together = c.params().getOrDefault("rpb", 1);
                long groups = (rows + together - 1) / together;
                long blocks = fwd && c.params().getOrDefault("persist", 1) == 0 ? groups : Math.min(groups, wave);
                if (fwd) {
                    Args a = new Args().ptr(t.get("x"));
                    if (add) a.ptr(t.get("r")); else a.nullPtr();
                    a.ptr(t.get("w"));
                    if (add) a.ptr(t.get("h")); else a.nullPtr();
                    p.add(a.ptr(t.get("y")).i64(rows).i32(n).f32(eps).launch(k, (int) blocks, threads, smem));
                } else {
                    // Block b handles rows [b*rpb, (b+1)*rpb), `together` at a time, one dw partial per row
                    // group (per block where the kernel finishes dw itself: dwfin).
                    long rpb = (rows + blocks - 1) / blocks, parts = (rows + rpb - 1) / rpb;
                    boolean finish = finishesDw(c);
                    CudaBuffer partial = p.scratch("dw_partial", DType.FP32, finish ? parts : parts * together, n);
                    Args a = new Args().ptr(t.get(add ? "h" : "x")).ptr(t.get("w")).ptr(t.get("dy"));
                    if (add) a.ptr(t.get("dh")); else a.nullPtr();
                    a.ptr(t.get("dx")).ptr(partial).i64(rows).i32(n).i64(rpb).f32(eps).ptr(t.get("dw"));
                    if (finish) a.ptr(gridBarrier(p)); else a.nullPtr();
                    p.add(a.launch(k, (int) parts, threads, smem));
                    if (!finish) d.columnSum(p, partial, parts * together, n, t.get("dw"));
                }
            }
            case "qnorm_rope_complex", "qnorm_rope_real" -> {
                long heads = s.dim("H"), rows = s.tokens() * heads;
                int hd = (int) s.dim("HD"), lanes = c.get("lanes");
                float eps = (float) s.param("eps");
                boolean complex = ((QNormRope) in.op()).form() == QNormRope.Form.COMPLEX;
                Args a = new Args().ptr(t.get("q")).ptr(t.get("w"));
                if (complex) a.ptr(t.get("freqs")).nullPtr().nullPtr();
                else a.nullPtr().ptr(t.get("cos")).ptr(t.get("sin"));
                long groupsPerBlock = threads / lanes;
                if (fwd) {
                    long rowsPerBlock = groupsPerBlock * c.get("rpi");
                    int grid = (int) Math.min((rows + rowsPerBlock - 1) / rowsPerBlock, wave);
                    p.add(a.ptr(t.get("out")).i64(rows).i64(heads).i32(hd).f32(eps).launch(k, grid, threads, smem));
                } else {
                    long groups0 = Math.min(rows, (long) wave * groupsPerBlock), rpg = (rows + groups0 - 1) / groups0;
                    long blocks = ((rows + rpg - 1) / rpg + groupsPerBlock - 1) / groupsPerBlock;
                    // One dw partial per block: the kernel sums its row groups' partials first.
                    CudaBuffer partial = p.scratch("dw_partial", DType.FP32, blocks, hd);
                    boolean finish = finishesDw(c);
                    a.ptr(t.get("dy")).ptr(t.get("dq")).ptr(partial).i64(rows).i64(heads).i32(hd).i64(rpg).f32(eps).ptr(t.get("dw"));
                    if (finish) a.ptr(gridBarrier(p)); else a.nullPtr();
                    p.add(a.launch(k, (int) blocks, threads, smem));
                    if (!finish) d.columnSum(p, partial, blocks, hd, t.get("dw"));
                }
            }
            case "swiglu" -> {
                long n = s.tokens() * s.dim("F");
                int grid = tiles(n, c);
                if (fwd) p.add(new Args().ptr(t.get("gate")).ptr(t.get("up")).ptr(t.get("out")).i64(n).launch(k, grid, threads));
                else p.add(new Args().ptr(t.get("gate")).ptr(t.get("up")).ptr(t.get("dy")).ptr(t.get("dgate")).ptr(t.get("dup")).i64(n)
                        .launch(k, grid, threads));
            }
            case "moe_routing" -> {
                long tokens = s.tokens(), e = s.dim("E");
                long tokensPerBlock = threads / c.get("lanes");
                int grid = (int) Math.min((tokens + tokensPerBlock - 1) / tokensPerBlock, wave);
                p.add(new Args().ptr(t.get("logits")).ptr(t.get("weights")).ptr(t.get("indices")).i64(tokens).i32((int) e).launch(k, grid, threads));
            }
            case "cat" -> {
                long dd = s.dim("D"), ha = dd / 2, hb = dd - ha, es = s.dtype().bytes(), rows = s.tokens();
                // flat=1: a block per tile of the output's pieces (rows end to end); else blocks loop over rows.
                long pieces = rows * dd * es / c.get("chunk"), tile = (long) threads * c.get("unroll");
                int grid = c.params().getOrDefault("flat", 0) == 1 ? (int) ((pieces + tile - 1) / tile) : (int) Math.min(rows, wave * 4L);
                p.add(new Args().ptr(t.get("a")).ptr(t.get("b")).ptr(t.get("out")).i64(rows).i64(ha * es).i64(hb * es)
                        .launch(k, grid, threads));
            }
            case "cast" -> {
                long n = t.get("x").spec().elements();
                p.add(new Args().ptr(t.get("x")).ptr(t.get("y")).i64(n).launch(k, tiles(n, c), threads));
            }
            default -> throw new IllegalArgumentException("the CUDA device has no fused kernel for op '" + in.op().name() + "'");
        }
    }

    /**
     * dwfin=1: the backward finishes its weight gradient itself, after a grid barrier (the grids
     * above are one resident wave at most, so every block runs at once and the barrier cannot wait
     * on a block that has no SM).
     */
    private static boolean finishesDw(KernelConfig c) { return c.params().getOrDefault("dwfin", 0) == 1; }

    /** The grid barrier's two counters (arrivals, departures), zeroed here once; the kernel leaves them at zero. */
    private static CudaBuffer gridBarrier(CudaProgram p) {
        CudaBuffer bar = p.scratch("grid_barrier", DType.I32, 2);
        JCudaDriver.cuMemsetD32(bar.ptr(), 0, 2);
        return bar;
    }

    /** Blocks of this kernel that are resident on one SM at once (at least 1). */
    private static int residentBlocks(KernelLaunch.Function k, int threads, int sharedBytes) {
        int[] blocks = new int[1];
        JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, k.function(), threads, sharedBytes);
        return Math.max(1, blocks[0]);
    }

    /** Elementwise kernels: one block per tile of threads x vec x unroll elements. */
    private static int tiles(long n, KernelConfig c) {
        long tile = (long) c.get("threads") * c.get("vec") * c.get("unroll");
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (n + tile - 1) / tile));
    }
}
