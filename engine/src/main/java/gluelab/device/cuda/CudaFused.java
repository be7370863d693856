package gluelab.device.cuda;

import gluelab.device.OpInstance;
import gluelab.device.cuda.KernelLaunch.Args;
import gluelab.ops.Pass;
import gluelab.ops.QNormRope;
import gluelab.tensor.DType;

import java.util.Map;

/** The FUSED variant of each catalogue op on the GPU: one kernel (plus a column sum where a weight grad is reduced). */
final class CudaFused {
    private static final int MAXC = 4, MAXP = 4;

    private CudaFused() {}

    static void build(OpInstance in, Map<String, CudaBuffer> t, CudaProgram p, CudaDevice d) {
        var s = in.shape();
        CudaKernels k = d.kernels();
        int dt = s.dtype().ordinal();
        boolean fwd = in.pass() == Pass.FORWARD;
        switch (in.op().name()) {
            case "rmsnorm", "add_rmsnorm" -> {
                long rows = s.tokens();
                int n = (int) s.dim("D");
                float eps = (float) s.param("eps");
                boolean add = in.op().name().equals("add_rmsnorm");
                int block = rowBlock(n, in.op().name());
                if (fwd) {
                    Args a = new Args().ptr(t.get("x"));
                    if (add) a.ptr(t.get("r")); else a.nullPtr();
                    a.ptr(t.get("w"));
                    if (add) a.ptr(t.get("h")); else a.nullPtr();
                    p.add(a.ptr(t.get("y")).i64(rows).i32(n).f32(eps).i32(dt)
                            .launch(k, "fused_rmsnorm_fwd", (int) Math.min(rows, d.sms() * 64L), block));
                } else {
                    // Enough blocks to keep every SM busy with several rows in flight; each writes one dw partial row.
                    long parts = Math.min(rows, d.sms() * 8L), rpb = (rows + parts - 1) / parts;
                    parts = (rows + rpb - 1) / rpb;
                    CudaBuffer partial = p.scratch("dw_partial", DType.FP32, parts, n);
                    Args a = new Args().ptr(t.get(add ? "h" : "x")).ptr(t.get("w")).ptr(t.get("dy"));
                    if (add) a.ptr(t.get("dh")); else a.nullPtr();
                    p.add(a.ptr(t.get("dx")).ptr(partial).i64(rows).i32(n).i64(rpb).f32(eps).i32(dt)
                            .launch(k, "fused_rmsnorm_bwd", (int) parts, block));
                    p.add(d.columnSum(partial, parts, n, t.get("dw")));
                }
            }
            case "qnorm_rope_complex", "qnorm_rope_real" -> {
                long heads = s.dim("H"), rows = s.tokens() * heads;
                int hd = (int) s.dim("HD");
                if (hd / 2 > 32 * MAXP) throw new IllegalArgumentException("fused q-norm + RoPE on the GPU supports head dims up to " + (64 * MAXP) + ", got " + hd);
                float eps = (float) s.param("eps");
                boolean complex = ((QNormRope) in.op()).form() == QNormRope.Form.COMPLEX;
                Args a = new Args().ptr(t.get("q")).ptr(t.get("w"));
                if (complex) a.ptr(t.get("freqs")).nullPtr().nullPtr();
                else a.nullPtr().ptr(t.get("cos")).ptr(t.get("sin"));
                if (fwd) {
                    p.add(a.ptr(t.get("out")).i64(rows).i64(heads).i32(hd).f32(eps).i32(dt)
                            .launch(k, "fused_qnorm_rope_fwd", (int) ((rows * 32 + 127) / 128), 128));
                } else {
                    long rpw = Math.max(1, rows / (d.sms() * 64L)), warps = (rows + rpw - 1) / rpw;
                    CudaBuffer partial = p.scratch("dw_partial", DType.FP32, warps, hd);
                    p.add(a.ptr(t.get("dy")).ptr(t.get("dq")).ptr(partial).i64(rows).i64(heads).i32(hd).i64(rpw).f32(eps).i32(dt)
                            .launch(k, "fused_qnorm_rope_bwd", (int) ((warps * 32 + 127) / 128), 128));
                    p.add(d.columnSum(partial, warps, hd, t.get("dw")));
                }
            }
            case "swiglu" -> {
                long n = s.tokens() * s.dim("F");
                int grid = d.gridFor(n % 8 == 0 ? n / 8 : n, 256);
                if (fwd) p.add(new Args().ptr(t.get("gate")).ptr(t.get("up")).ptr(t.get("out")).i64(n).i32(dt).launch(k, "fused_swiglu_fwd", grid, 256));
                else p.add(new Args().ptr(t.get("gate")).ptr(t.get("up")).ptr(t.get("dy")).ptr(t.get("dgate")).ptr(t.get("dup")).i64(n).i32(dt)
                        .launch(k, "fused_swiglu_bwd", grid, 256));
            }
            case "moe_routing" -> {
                long tokens = s.tokens(), e = s.dim("E"), kk = s.dim("K");
                CudaDevice.checkRouting(e, kk);
                p.add(new Args().ptr(t.get("logits")).ptr(t.get("weights")).ptr(t.get("indices")).i64(tokens).i32((int) e).i32((int) kk)
                        .i32(s.text("score").equals("softmax") ? 1 : 0).i32(dt).launch(k, "fused_routing", (int) ((tokens * 32 + 127) / 128), 128));
            }
            case "cat" -> {
                long dd = s.dim("D"), ha = dd / 2, hb = dd - ha, es = s.dtype().bytes(), rows = s.tokens();
                long chunks = (ha * es) % 16 == 0 && (hb * es) % 16 == 0 ? rows * dd * es / 16 : rows * dd * es;
                p.add(new Args().ptr(t.get("a")).ptr(t.get("b")).ptr(t.get("out")).i64(rows).i64(ha * es).i64(hb * es)
                        .launch(k, "fused_cat", d.gridFor(chunks, 256), 256));
            }
            case "cast" -> {
                CudaBuffer x = t.get("x"), y = t.get("y");
                long n = x.spec().elements();
                if (x.spec().dtype() == DType.BF16) {
                    p.add(new Args().ptr(x).ptr(y).i64(n).launch(k, "fused_cast_bf16_f32", d.gridFor(n % 8 == 0 ? n / 8 : n, 256), 256));
                } else {
                    new CudaEagerOps(p, d).unary(gluelab.device.eager.EagerOps.Unary.CAST, x, y, 0);
                }
            }
            default -> throw new IllegalArgumentException("the CUDA device has no fused kernel for op '" + in.op().name() + "'");
        }
    }

    /** Threads per row for the norm kernels: each handles at most MAXC chunks of 8 (or single) elements. */
    static int rowBlock(int n, String op) {
        int chunks = n % 8 == 0 ? n / 8 : n;
        int block = Math.min(1024, Math.max(64, (chunks + 31) / 32 * 32));
        if ((chunks + block - 1) / block > MAXC) {
            throw new IllegalArgumentException("fused " + op + " on the GPU supports rows up to " + (1024 * MAXC * (n % 8 == 0 ? 8 : 1)) + " elements, got " + n);
        }
        return block;
    }
}
