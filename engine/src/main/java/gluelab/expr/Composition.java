package gluelab.expr;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Regions joined into one (C = A then B) and rebuilt over substituted leaves. */
final class Composition {
    private Composition() {}

    /**
     * B's inputs named like A's outputs read those outputs (rounded to the input's dtype, as storing
     * them would); C's outputs are B's plus A's that B does not read.
     */
    static Region then(Region a, Region b) {
        Map<Expr, Expr> subst = new IdentityHashMap<>();
        for (Expr in : b.inputs()) {
            Expr produced = a.outputs().get(in.name());
            if (produced == null) continue;
            if (!produced.shape().sameSizes(in.shape())) {
                throw new ExprException("region '" + b.name() + "' reads '" + in.name() + "' as " + in.shape() + " but region '" + a.name() + "' makes it " + produced.shape());
            }
            subst.put(in, produced.dtype() == in.dtype() ? produced : produced.cast(in.dtype()));
        }
        if (subst.isEmpty()) throw new ExprException("region '" + b.name() + "' reads none of region '" + a.name() + "''s outputs " + a.outputs().keySet());
        Map<String, Expr> outs = new LinkedHashMap<>();
        for (Map.Entry<String, Expr> o : a.outputs().entrySet()) {
            boolean read = b.inputs().stream().anyMatch(in -> in.name().equals(o.getKey()));
            if (!read) outs.put(o.getKey(), o.getValue());
        }
        Map<Expr, Expr> memo = new IdentityHashMap<>(subst);
        for (Map.Entry<String, Expr> o : b.outputs().entrySet()) outs.put(o.getKey(), rebuild(o.getValue(), memo));
        return Region.of(a.name() + "+" + b.name(), outs);
    }

    /** The expression with every node in {@code memo} replaced by its value there. */
    static Expr rebuild(Expr e, Map<Expr, Expr> memo) {
        Expr done = memo.get(e);
        if (done != null) return done;
        List<Expr> args = new ArrayList<>();
        boolean same = true;
        for (Expr x : e.args()) {
            Expr r = rebuild(x, memo);
            same &= r == x;
            args.add(r);
        }
        Expr out = same ? e : e.withArgs(args);
        memo.put(e, out);
        return out;
    }
}
