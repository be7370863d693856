package gluelab.backend.cuda;

import gluelab.backend.cuda.KernelLaunch.Args;
import gluelab.backend.eager.EagerOps;
import gluelab.tensor.DType;

/** EagerOps on the GPU: each primitive becomes one (or, for column sums, two) kernel launches. */
final class CudaEagerOps implements EagerOps<CudaBuffer> {
    private final CudaProgram program;
    private final CudaDevice device;
    private final CudaKernels k;

    CudaEagerOps(CudaProgram program, CudaDevice device) {
        this.program = program;
        this.device = device;
        this.k = device.kernels();
    }

    static int dt(CudaBuffer b) { return CudaCodes.dtype(b.spec().dtype()); }

    static long n(CudaBuffer b) { return b.spec().elements(); }

    private int grid(long items) { return device.gridFor(items, 256); }

    private long vecItems(long n) { return n % 8 == 0 ? n / 8 : n; }

    @Override public CudaBuffer scratch(String name, DType dtype, long... shape) { return program.scratch(name, dtype, shape); }

    @Override public void unary(Unary op, CudaBuffer in, CudaBuffer out, float s) {
        program.add(new Args().ptr(in).ptr(out).i64(n(in)).i32(CudaCodes.unary(op)).f32(s).i32(dt(in)).i32(dt(out))
                .launch(k, "prim_unary", grid(vecItems(n(in))), 256));
    }

    @Override public void binary(Binary op, CudaBuffer a, CudaBuffer b, CudaBuffer out) {
        program.add(new Args().ptr(a).ptr(b).ptr(out).i64(n(a)).i32(CudaCodes.binary(op)).i32(dt(a)).i32(dt(b)).i32(dt(out))
                .launch(k, "prim_binary", grid(vecItems(n(a))), 256));
    }

    private void broadcast(CudaBuffer x, CudaBuffer v, CudaBuffer out, long n, CudaCodes.Broadcast mode, float scale) {
        long rows = n(out) / n;
        Args a = new Args();
        if (x == null) a.nullPtr(); else a.ptr(x);
        program.add(a.ptr(v).ptr(out).i64(rows).i64(n).i32(mode.code).f32(scale).i32(x == null ? dt(out) : dt(x)).i32(dt(v)).i32(dt(out))
                .launch(k, "prim_broadcast", grid(vecItems(rows * n)), 256));
    }

    @Override public void mulRows(CudaBuffer x, CudaBuffer v, CudaBuffer out, long n) { broadcast(x, v, out, n, CudaCodes.Broadcast.MUL_ROWS, 1f); }

    @Override public void mulCols(CudaBuffer x, CudaBuffer v, CudaBuffer out, long n) { broadcast(x, v, out, n, CudaCodes.Broadcast.MUL_COLS, 1f); }

    @Override public void expandRows(CudaBuffer v, CudaBuffer out, long n, float scale) { broadcast(null, v, out, n, CudaCodes.Broadcast.EXPAND_ROWS, scale); }

    @Override public void divRows(CudaBuffer x, CudaBuffer v, CudaBuffer out, long n) { broadcast(x, v, out, n, CudaCodes.Broadcast.DIV_ROWS, 1f); }

    @Override public void sumLast(CudaBuffer x, CudaBuffer out, long n, float scale) {
        long rows = n(x) / n;
        int block = n >= 256 ? 256 : 32;
        program.add(new Args().ptr(x).ptr(out).i64(rows).i64(n).f32(scale).i32(dt(x)).i32(dt(out))
                .launch(k, "prim_sum_last", (int) Math.min(rows, device.sms() * 64L), block));
    }

    @Override public void sumCols(CudaBuffer x, CudaBuffer out, long n) {
        long rows = n(x) / n;
        long parts = Math.min(rows, device.sms() * 4L);
        long rpb = (rows + parts - 1) / parts;
        parts = (rows + rpb - 1) / rpb;
        CudaBuffer partial = program.scratch("col_partial", DType.FP32, parts, n);
        program.add(new Args().ptr(x).ptr(partial).i64(rows).i64(n).i64(rpb).i32(dt(x)).launch(k, "prim_col_partial", (int) parts, 256));
        program.add(device.columnSum(partial, parts, n, out));
    }

    @Override public void ropeProduct(CudaBuffer x, int parity, CudaBuffer f, CudaBuffer out, long heads, long half) {
        long rows = n(out) / half;
        program.add(new Args().ptr(x).i32(parity).ptr(f).ptr(out).i64(rows).i64(heads).i64(half).i32(dt(x)).i32(dt(f)).i32(dt(out))
                .launch(k, "prim_rope_product", grid(rows * half), 256));
    }

    @Override public void interleave(CudaBuffer even, CudaBuffer odd, CudaBuffer out) {
        program.add(new Args().ptr(even).ptr(odd).ptr(out).i64(n(even)).i32(dt(out)).launch(k, "prim_interleave", grid(n(even)), 256));
    }

    @Override public void complexMul(CudaBuffer x, CudaBuffer freqs, CudaBuffer out, long heads, long half, boolean conj) {
        long rows = n(x) / (2 * half);
        program.add(new Args().ptr(x).ptr(freqs).ptr(out).i64(rows).i64(heads).i64(half).i32(conj ? 1 : 0)
                .launch(k, "prim_complex_mul", grid(rows * half), 256));
    }

    @Override public void siluBackward(CudaBuffer grad, CudaBuffer g, CudaBuffer out) {
        program.add(new Args().ptr(grad).ptr(g).ptr(out).i64(n(g)).i32(dt(g)).launch(k, "prim_silu_backward", grid(n(g)), 256));
    }

    @Override public void routerScores(CudaBuffer logits, CudaBuffer scores, long experts, boolean softmax) {
        long tokens = n(logits) / experts;
        CudaDevice.checkRouting(experts, 1);
        program.add(new Args().ptr(logits).ptr(scores).i64(tokens).i32((int) experts).i32(softmax ? 1 : 0).i32(dt(logits))
                .launch(k, "prim_router_scores", (int) ((tokens * 32 + 127) / 128), 128));
    }

    @Override public void topK(CudaBuffer scores, CudaBuffer values, CudaBuffer indices, long experts, long kk) {
        long tokens = n(scores) / experts;
        CudaDevice.checkRouting(experts, kk);
        program.add(new Args().ptr(scores).ptr(values).ptr(indices).i64(tokens).i32((int) experts).i32((int) kk)
                .launch(k, "prim_topk", (int) ((tokens * 32 + 127) / 128), 128));
    }

    @Override public void cat(CudaBuffer a, CudaBuffer b, CudaBuffer out, long widthA, long widthB) {
        long rows = n(out) / (widthA + widthB);
        program.add(new Args().ptr(a).ptr(b).ptr(out).i64(rows).i64(widthA).i64(widthB).i32(dt(out))
                .launch(k, "prim_cat", grid(n(out)), 256));
    }
}
