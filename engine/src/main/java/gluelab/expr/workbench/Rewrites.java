package gluelab.expr.workbench;

import gluelab.expr.Expr;
import gluelab.expr.Glue;
import gluelab.expr.Region;

import java.util.List;

/**
 * The workflow's rewrites that expressions can state, as data: each a named pair of regions
 * (before, after) over the same inputs' shapes, for notebook 05 to time side by side.
 */
public final class Rewrites {
    /** A rewrite: the pattern's number in the workflow's table, its name, and the two forms. */
    public record Rewrite(int pattern, String name, String why, Region before, Region after) {}

    private Rewrites() {}

    public static List<Rewrite> all(Glue g, String dtype) {
        return List.of(complexToRealRope(g, dtype), scoresOnNarrowerTensor(g, dtype), foldCatIntoNorm(g, dtype));
    }

    /** Pattern 1: complex-number RoPE (pairs times a complex table) to real arithmetic on halves. */
    public static Rewrite complexToRealRope(Glue g, String dtype) {
        return new Rewrite(1, "complex -> real RoPE", "no complex kernels; real RoPE needs no interleaved pairs (weights permuted once)",
                Examples.qnormRopeComplex(g, dtype), Examples.qnormRopeReal(g, dtype));
    }

    /**
     * Pattern 7: a routing score scales the down projection's output y [T, K, D]; moved before
     * the (linear) down projection it scales the SwiGLU output [T, K, F] instead, with F < D for
     * fine-grained experts, and y is never read or written by glue.
     */
    public static Rewrite scoresOnNarrowerTensor(Glue g, String dtype) {
        Expr gate = g.input("gate", dtype, "T", "K", "F"), up = g.input("up", dtype, "T", "K", "F");
        Expr y = g.input("y", dtype, "T", "K", "D"), score = g.data("score", "fp32", "T", "K");
        Expr h = gate.silu().mul(up);
        Region before = g.region("score_on_wide").out("h", h.cast(gate.dtype())).out("y_scaled", y.mul(score).cast(y.dtype()));
        Expr gate2 = g.input("gate", dtype, "T", "K", "F"), up2 = g.input("up", dtype, "T", "K", "F");
        Expr score2 = g.data("score", "fp32", "T", "K");
        Region after = g.region("score_on_narrow").out("h", gate2.silu().mul(up2).mul(score2).cast(gate2.dtype()));
        return new Rewrite(7, "scores on the narrower tensor", "scale [T,K,F] before the down projection instead of [T,K,D] after it", before, after);
    }

    /**
     * Pattern 2: q = cat(a, b) then RMSNorm(q) materialises the cat; the norm's sum of squares is
     * the sum over the parts, so the normalised parts are written straight into the output.
     */
    public static Rewrite foldCatIntoNorm(Glue g, String dtype) {
        int nope = (int) g.dim("NOPE").size(), rope = (int) g.dim("R").size();
        Expr a = g.input("q_nope", dtype, "T", "H", "NOPE"), b = g.input("q_pe", dtype, "T", "H", "R"), w = g.input("w", dtype, "HD");
        Region before = g.region("cat_then_norm").out("out", Examples.rmsnorm(g, a.cat(b), w));
        Expr a2 = g.input("q_nope", dtype, "T", "H", "NOPE"), b2 = g.input("q_pe", dtype, "T", "H", "R"), w2 = g.input("w", dtype, "HD");
        long width = g.dim("HD").size();
        Expr r = a2.square().sum().add(b2.square().sum()).mul(1.0 / width).add(g.param("eps", 1e-5)).rsqrt();
        Expr out = a2.mul(r).mul(w2.slice(0, nope)).cat(b2.mul(r).mul(w2.slice(nope, rope))).cast(a2.dtype());
        return new Rewrite(2, "fold cat into the norm", "one sum of squares over the parts; no materialised cat", before, g.region("norm_of_parts").out("out", out));
    }
}
