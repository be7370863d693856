package gluelab.backend.eager;

import gluelab.device.OpInstance;
import gluelab.backend.eager.EagerOps.Binary;
import gluelab.backend.eager.EagerOps.Unary;
import gluelab.ops.OpId;
import gluelab.ops.OpRegistry;
import gluelab.ops.Pass;
import gluelab.ops.QNormRope;
import gluelab.tensor.DType;

import java.util.Map;

/**
 * The EAGER variant of every catalogue op as a chain of primitives, as a framework's eager mode
 * runs it: intermediates in the activation dtype (reductions in fp32), backward as autograd runs it
 * after recomputing the forward's intermediates (activation checkpointing).
 */
public final class EagerChains {
    private EagerChains() {}

    /** One op's eager chain over bound buffers (inputs, outputs and scratch through {@code ops}). */
    @FunctionalInterface
    public interface Chain {
        <B> void build(OpInstance in, Map<String, B> t, EagerOps<B> ops);
    }

    /** One file's eager chains, listed in {@code META-INF/services/gluelab.backend.eager.EagerChains$Entries}. */
    public interface Entries extends OpRegistry.Entries<Chain> {}

    /** The catalogue's own chains (below). */
    public static final class Builtin implements Entries {
        @Override public void register(OpRegistry.Builder<Chain> r) {
            r.add(OpId.of("rmsnorm"), EagerChains::rmsnorm)
                    .add(OpId.of("add_rmsnorm"), EagerChains::addRmsnorm)
                    .add(OpId.of("qnorm_rope_complex"), EagerChains::qnormRope)
                    .add(OpId.of("qnorm_rope_real"), EagerChains::qnormRope)
                    .add(OpId.of("swiglu"), EagerChains::swiglu)
                    .add(OpId.of("moe_routing"), EagerChains::moeRouting)
                    .add(OpId.of("cat"), EagerChains::cat)
                    .add(OpId.of("cast"), EagerChains::cast);
        }
    }

    private static final OpRegistry<Chain> REGISTRY = registry(EagerChains.class.getClassLoader());

    /** The eager chains registry. */
    public static OpRegistry<Chain> registry() { return REGISTRY; }

    /** The chains listed in the service files {@code loader} sees. */
    public static OpRegistry<Chain> registry(ClassLoader loader) { return OpRegistry.discover("eager chains", Entries.class, loader); }

    public static <B> void build(OpInstance in, Map<String, B> t, EagerOps<B> ops) { REGISTRY.get(in.op().id()).build(in, t, ops); }

    private static <B> void rmsnorm(OpInstance in, Map<String, B> t, EagerOps<B> ops) {
        var s = in.shape();
        boolean fwd = in.pass() == Pass.FORWARD;
        DType dt = s.dtype();
        long rows = s.tokens(), n = s.dim("D");
        float eps = (float) s.param("eps");
        if (fwd) normForward(ops, t.get("x"), t.get("w"), t.get("y"), dt, rows, n, eps);
        else normBackward(ops, t.get("x"), t.get("w"), t.get("dy"), t.get("dx"), t.get("dw"), dt, rows, n, eps);
    }

    private static <B> void addRmsnorm(OpInstance in, Map<String, B> t, EagerOps<B> ops) {
        var s = in.shape();
        boolean fwd = in.pass() == Pass.FORWARD;
        DType dt = s.dtype();
        long rows = s.tokens(), n = s.dim("D");
        float eps = (float) s.param("eps");
        if (fwd) {
            ops.binary(Binary.ADD, t.get("x"), t.get("r"), t.get("h"));
            normForward(ops, t.get("h"), t.get("w"), t.get("y"), dt, rows, n, eps);
        } else {
            B dxn = ops.scratch("dx_norm", dt, rows, n);
            normBackward(ops, t.get("h"), t.get("w"), t.get("dy"), dxn, t.get("dw"), dt, rows, n, eps);
            ops.binary(Binary.ADD, dxn, t.get("dh"), t.get("dx"));
        }
    }

    private static <B> void qnormRope(OpInstance in, Map<String, B> t, EagerOps<B> ops) {
        var s = in.shape();
        boolean fwd = in.pass() == Pass.FORWARD;
        DType dt = s.dtype();
        long heads = s.dim("H"), hd = s.dim("HD"), half = hd / 2, rows = s.tokens() * heads;
        float eps = (float) s.param("eps");
        boolean complex = ((QNormRope) in.op()).form() == QNormRope.Form.COMPLEX;
        if (fwd) {
            B normed = ops.scratch("normed", dt, rows, hd);
            normForward(ops, t.get("q"), t.get("w"), normed, dt, rows, hd, eps);
            rope(ops, complex, normed, t, t.get("out"), dt, rows, heads, half, false);
        } else {
            B dn = ops.scratch("dnormed", dt, rows, hd);
            rope(ops, complex, t.get("dy"), t, dn, dt, rows, heads, half, true);
            normBackward(ops, t.get("q"), t.get("w"), dn, t.get("dq"), t.get("dw"), dt, rows, hd, eps);
        }
    }

    private static <B> void swiglu(OpInstance in, Map<String, B> t, EagerOps<B> ops) {
        var s = in.shape();
        boolean fwd = in.pass() == Pass.FORWARD;
        DType dt = s.dtype();
        long tokens = s.tokens(), f = s.dim("F");
        B g = t.get("gate"), u = t.get("up");
        B sg = ops.scratch("silu_gate", dt, tokens, f);
        ops.unary(Unary.SILU, g, sg, 0);
        if (fwd) {
            ops.binary(Binary.MUL, sg, u, t.get("out"));
        } else {
            B ds = ops.scratch("d_silu", dt, tokens, f);
            ops.binary(Binary.MUL, t.get("dy"), sg, t.get("dup"));
            ops.binary(Binary.MUL, t.get("dy"), u, ds);
            ops.siluBackward(ds, g, t.get("dgate"));
        }
    }

    private static <B> void moeRouting(OpInstance in, Map<String, B> t, EagerOps<B> ops) {
        var s = in.shape();
        long tokens = s.tokens(), e = s.dim("E"), k = s.dim("K");
        B scores = ops.scratch("scores", DType.FP32, tokens, e), vals = ops.scratch("topk_values", DType.FP32, tokens, k);
        B sums = ops.scratch("topk_sum", DType.FP32, tokens);
        ops.routerScores(t.get("logits"), scores, e, s.text("score").equals("softmax"));
        ops.topK(scores, vals, t.get("indices"), e, k);
        ops.sumLast(vals, sums, k, 1f);
        ops.divRows(vals, sums, t.get("weights"), k);
    }

    private static <B> void cat(OpInstance in, Map<String, B> t, EagerOps<B> ops) {
        var s = in.shape();
        long d = s.dim("D");
        ops.cat(t.get("a"), t.get("b"), t.get("out"), d / 2, d - d / 2);
    }

    private static <B> void cast(OpInstance in, Map<String, B> t, EagerOps<B> ops) {
        ops.unary(Unary.CAST, t.get("x"), t.get("y"), 0);
    }

    /** y = x * rsqrt(mean(x^2) + eps) * w: 6 passes. */
    static <B> void normForward(EagerOps<B> ops, B x, B w, B y, DType dt, long rows, long n, float eps) {
        B sq = ops.scratch("sq", dt, rows, n), ms = ops.scratch("ms", dt, rows), mse = ops.scratch("ms_eps", dt, rows);
        B r = ops.scratch("rstd", dt, rows), xr = ops.scratch("x_rstd", dt, rows, n);
        ops.unary(Unary.SQUARE, x, sq, 0);
        ops.sumLast(sq, ms, n, 1f / n);
        ops.unary(Unary.ADD_SCALAR, ms, mse, eps);
        ops.unary(Unary.RSQRT, mse, r, 0);
        ops.mulRows(x, r, xr, n);
        ops.mulCols(xr, w, y, n);
    }

    /** Recompute of the forward's intermediates, then autograd's chain: 18 passes. */
    static <B> void normBackward(EagerOps<B> ops, B x, B w, B dy, B dx, B dw, DType dt, long rows, long n, float eps) {
        B sq = ops.scratch("sq", dt, rows, n), ms = ops.scratch("ms", dt, rows), mse = ops.scratch("ms_eps", dt, rows);
        B r = ops.scratch("rstd", dt, rows), xr = ops.scratch("x_rstd", dt, rows, n);
        B dyxr = ops.scratch("dy_xr", dt, rows, n), g = ops.scratch("g", dt, rows, n), gx = ops.scratch("gx", dt, rows, n);
        B dr = ops.scratch("drstd", dt, rows), r3 = ops.scratch("rstd3", dt, rows), dms = ops.scratch("dms", dt, rows);
        B dms2 = ops.scratch("dms_scaled", dt, rows), dsq = ops.scratch("dsq", dt, rows, n), x2 = ops.scratch("x2", dt, rows, n);
        B part2 = ops.scratch("part2", dt, rows, n), part1 = ops.scratch("part1", dt, rows, n);
        ops.unary(Unary.SQUARE, x, sq, 0);
        ops.sumLast(sq, ms, n, 1f / n);
        ops.unary(Unary.ADD_SCALAR, ms, mse, eps);
        ops.unary(Unary.RSQRT, mse, r, 0);
        ops.mulRows(x, r, xr, n);
        ops.binary(Binary.MUL, dy, xr, dyxr);
        ops.sumCols(dyxr, dw, n);
        ops.mulCols(dy, w, g, n);
        ops.binary(Binary.MUL, g, x, gx);
        ops.sumLast(gx, dr, n, 1f);
        ops.unary(Unary.CUBE, r, r3, 0);
        ops.binary(Binary.MUL, dr, r3, dms);
        ops.unary(Unary.MUL_SCALAR, dms, dms2, -0.5f);
        ops.expandRows(dms2, dsq, n, 1f / n);
        ops.unary(Unary.MUL_SCALAR, x, x2, 2f);
        ops.binary(Binary.MUL, x2, dsq, part2);
        ops.mulRows(g, r, part1, n);
        ops.binary(Binary.ADD, part1, part2, dx);
    }

    /** Complex form: x.float() -> complex mul -> type_as (3 passes); real form: 7 passes on strided views. */
    static <B> void rope(EagerOps<B> ops, boolean complex, B x, Map<String, B> t, B out, DType dt, long rows, long heads, long half, boolean inverse) {
        if (complex) {
            B xf = ops.scratch("x_fp32", DType.FP32, rows, 2 * half), rot = ops.scratch("rotated_fp32", DType.FP32, rows, 2 * half);
            ops.unary(Unary.CAST, x, xf, 0);
            ops.complexMul(xf, t.get("freqs"), rot, heads, half, inverse);
            ops.unary(Unary.CAST, rot, out, 0);
            return;
        }
        B cos = t.get("cos"), sin = t.get("sin");
        B ac = ops.scratch("a_cos", dt, rows, half), bs = ops.scratch("b_sin", dt, rows, half), even = ops.scratch("even", dt, rows, half);
        B as = ops.scratch("a_sin", dt, rows, half), bc = ops.scratch("b_cos", dt, rows, half), odd = ops.scratch("odd", dt, rows, half);
        ops.ropeProduct(x, 0, cos, ac, heads, half);
        ops.ropeProduct(x, 1, sin, bs, heads, half);
        ops.binary(inverse ? Binary.ADD : Binary.SUB, ac, bs, even);
        ops.ropeProduct(x, 0, sin, as, heads, half);
        ops.ropeProduct(x, 1, cos, bc, heads, half);
        if (inverse) ops.binary(Binary.SUB, bc, as, odd);
        else ops.binary(Binary.ADD, as, bc, odd);
        ops.interleave(even, odd, out);
    }
}
