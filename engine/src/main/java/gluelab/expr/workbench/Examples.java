package gluelab.expr.workbench;

import gluelab.expr.Expr;
import gluelab.expr.Glue;
import gluelab.expr.Region;

/**
 * The catalogue's glue written as expressions: what notebook 05 shows cell by cell and what the
 * region tests check against fp64. Activations in {@code dtype}, RoPE tables in fp32.
 */
public final class Examples {
    private Examples() {}

    /** x * rsqrt(mean(x^2) + eps) * w over the last dim, rounded to x's dtype. */
    public static Expr rmsnorm(Glue g, Expr x, Expr w) {
        return normalized(g, x, w).cast(x.dtype());
    }

    /**
     * The same, not rounded: what a fused region hands on to the next step (q-norm's result into
     * RoPE stays fp32, as the catalogue's hand kernels keep it, so a region rounds once, at its output).
     */
    public static Expr normalized(Glue g, Expr x, Expr w) {
        return x.mul(x.square().mean().add(g.param("eps", 1e-5)).rsqrt()).mul(w);
    }

    public static Region rmsnorm(Glue g, String dtype) {
        Expr x = g.input("x", dtype, "T", "D"), w = g.input("w", dtype, "D");
        return g.region("rmsnorm").out("y", rmsnorm(g, x, w));
    }

    /** h = x + residual (kept for the next layer), y = rmsnorm(h). */
    public static Region addRmsnorm(Glue g, String dtype) {
        Expr x = g.input("x", dtype, "T", "D"), r = g.input("residual", dtype, "T", "D"), w = g.input("w", dtype, "D");
        Expr h = x.add(r);
        return g.region("add_rmsnorm").out("h", h).out("y", rmsnorm(g, h, w));
    }

    /** Per-head RMSNorm of q (in fp32) then complex RoPE: pairs (q[2i], q[2i+1]) times (cos, sin) pairs. */
    public static Region qnormRopeComplex(Glue g, String dtype) {
        Expr q = g.input("q", dtype, "T", "H", "HD"), w = g.input("w", dtype, "HD"), freqs = g.data("freqs", "fp32", "T", "HD");
        Expr qn = normalized(g, q, w);
        return g.region("qnorm_rope_complex").out("out", qn.pairs().times(freqs.pairs()).cast(q.dtype()));
    }

    /** Per-head RMSNorm of q (in fp32) then real RoPE on halves: (x1 cos - x2 sin, x2 cos + x1 sin). */
    public static Region qnormRopeReal(Glue g, String dtype) {
        Expr q = g.input("q", dtype, "T", "H", "HD"), w = g.input("w", dtype, "HD");
        Expr cos = g.data("cos", "fp32", "T", "HD2"), sin = g.data("sin", "fp32", "T", "HD2");
        return g.region("qnorm_rope_real").out("out", ropeHalves(normalized(g, q, w), cos, sin).cast(q.dtype()));
    }

    /** Real-arithmetic RoPE over the halves of the last dim. */
    public static Expr ropeHalves(Expr x, Expr cos, Expr sin) {
        Expr x1 = x.firstHalf(), x2 = x.secondHalf();
        return x1.mul(cos).sub(x2.mul(sin)).cat(x2.mul(cos).add(x1.mul(sin)));
    }

    /** silu(gate) * up. */
    public static Region swiglu(Glue g, String dtype) {
        Expr gate = g.input("gate", dtype, "T", "F"), up = g.input("up", dtype, "T", "F");
        return g.region("swiglu").out("y", gate.silu().mul(up).cast(gate.dtype()));
    }

    /** Region sizing's A: per-head q-norm (the output feeds RoPE). */
    public static Region qnorm(Glue g, String dtype) {
        Expr q = g.input("q", dtype, "T", "H", "HD"), w = g.input("w", dtype, "HD");
        return g.region("qnorm").out("qn", rmsnorm(g, q, w));
    }

    /** Region sizing's B: RoPE on the last R dims of each head, cat with the first NOPE dims. */
    public static Region ropeCat(Glue g, String dtype) {
        Expr qn = g.input("qn", dtype, "T", "H", "HD");
        Expr cos = g.data("cos", "fp32", "T", "R2"), sin = g.data("sin", "fp32", "T", "R2");
        int nope = (int) g.dim("NOPE").size(), rope = (int) g.dim("R").size();
        Expr pe = ropeHalves(qn.slice(nope, rope), cos, sin);
        return g.region("rope_cat").out("out", qn.slice(0, nope).cat(pe).cast(qn.dtype()));
    }
}
