package gluelab.expr;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reverse-mode differentiation of a region into another region. The backward reads the forward's
 * inputs and one gradient per output ({@code d<name>}), recomputes the intermediates it needs (as a
 * fused backward does instead of saving them), and writes {@code d<input>} for every input that
 * requires a gradient, summed over the row dims it was broadcast along (a weight over tokens).
 *
 * <p>Saved outputs: a value the forward already writes as an output (add+rmsnorm's h = x + r) and
 * the backward needs is read back as a backward input of the output's name, instead of recomputed
 * from the forward's inputs, where that makes the backward read fewer bytes (as autograd saves an
 * activation); forward inputs then unused drop out of the backward's inputs. A caller feeds such an
 * input the forward's output of that name ({@link Region#savedOutputs}).
 *
 * <p>A gradient may be narrower than its node while it flows (it broadcasts like any operand);
 * it is widened only where a primitive needs the full row.
 */
final class Autodiff {
    private Autodiff() {}

    static Region backward(Region forward) {
        Map<Expr, Expr> grads = new IdentityHashMap<>();
        for (Map.Entry<String, Expr> o : forward.outputs().entrySet()) {
            String gradName = "d" + o.getKey();
            for (Expr in : forward.inputs()) {
                if (in.name().equals(gradName)) throw new ExprException("region '" + forward.name() + "': input '" + gradName + "' clashes with the gradient of output '" + o.getKey() + "'");
            }
            Expr out = o.getValue();
            Expr g = Expr.leaf(Op.INPUT, out.shape(), out.dtype(), gradName, 0, false);
            accumulate(grads, out, g);
        }
        List<Expr> nodes = forward.nodes();
        for (int i = nodes.size() - 1; i >= 0; i--) {
            Expr n = nodes.get(i);
            Expr g = grads.get(n);
            if (g != null && n.op().kind() != Op.Kind.LEAF) propagate(n, g, grads);
        }
        Map<String, Expr> outs = new LinkedHashMap<>();
        for (Expr in : forward.inputs()) {
            if (!in.requiresGrad()) continue;
            Expr g = grads.get(in);
            g = g == null ? in.mul(0.0) : full(g, in.shape(), in);
            // A sum over rows is complete only after the region, so it is stored in the input's dtype rather than cast.
            if (g.dtype() != in.dtype()) g = g.op() == Op.SUM_TO ? g.arg(0).sumTo(g.shape(), in.dtype()) : g.cast(in.dtype());
            outs.put("d" + in.name(), g);
        }
        if (outs.isEmpty()) throw new ExprException("region '" + forward.name() + "' has no input that requires a gradient (inputs from data() have none)");
        return readSavedOutputs(forward, Region.of(forward.name() + ".bwd", outs));
    }

    /**
     * The backward with each forward output it recomputes replaced by an input of that output's
     * name, one output at a time, kept where the backward's inputs then take fewer bytes.
     */
    private static Region readSavedOutputs(Region forward, Region bwd) {
        for (Map.Entry<String, Expr> o : forward.written().entrySet()) {
            Expr value = o.getValue();
            if (value.op().kind() == Op.Kind.LEAF || !bwd.nodes().contains(value)) continue;
            if (bwd.inputs().stream().anyMatch(in -> in.name().equals(o.getKey()))) continue;
            Expr saved = Expr.leaf(Op.INPUT, value.shape(), value.dtype(), o.getKey(), 0, false);
            Map<Expr, Expr> memo = new IdentityHashMap<>();
            memo.put(value, saved);
            Map<String, Expr> outs = new LinkedHashMap<>();
            bwd.outputs().forEach((name, e) -> outs.put(name, Composition.rebuild(e, memo)));
            Region candidate = Region.of(bwd.name(), outs);
            if (inputBytes(candidate) < inputBytes(bwd)) bwd = candidate;
        }
        return bwd;
    }

    private static long inputBytes(Region r) {
        long b = 0;
        for (Expr in : r.inputs()) b += in.bytes();
        return b;
    }

    private static void propagate(Expr n, Expr g, Map<Expr, Expr> grads) {
        List<Expr> a = n.args();
        switch (n.op()) {
            case ADD -> { give(grads, a.get(0), g); give(grads, a.get(1), g); }
            case SUB -> { give(grads, a.get(0), g); give(grads, a.get(1), g.neg()); }
            case MUL -> { give(grads, a.get(0), g.mul(a.get(1))); give(grads, a.get(1), g.mul(a.get(0))); }
            case DIV -> { give(grads, a.get(0), g.div(a.get(1))); give(grads, a.get(1), g.mul(n).div(a.get(1)).neg()); }
            case NEG -> give(grads, a.get(0), g.neg());
            case EXP -> give(grads, a.get(0), g.mul(n));
            case LOG -> give(grads, a.get(0), g.div(a.get(0)));
            case SQRT -> give(grads, a.get(0), g.mul(0.5).div(n));
            case RSQRT -> give(grads, a.get(0), g.mul(n.pow(3)).mul(-0.5));
            case SIGMOID -> give(grads, a.get(0), g.mul(n.mul(n.neg().add(1.0))));
            case TANH -> give(grads, a.get(0), g.mul(n.square().neg().add(1.0)));
            case SILU -> {
                Expr x = a.get(0), s = x.sigmoid();
                give(grads, x, g.mul(s.mul(x.mul(s.neg().add(1.0)).add(1.0))));
            }
            case POW -> {
                double k = n.num();
                Expr x = a.get(0);
                give(grads, x, k == 2 ? g.mul(x).mul(2.0) : g.mul(x.pow(k - 1)).mul(k));
            }
            case CAST -> give(grads, a.get(0), g.dtype() == a.get(0).dtype() ? g : g.cast(a.get(0).dtype()));
            case GT, LT, GE, LE, EQ -> { }
            case WHERE -> {
                Expr zero = Glue.constant(0);
                give(grads, a.get(1), a.get(0).where(g, zero));
                give(grads, a.get(2), a.get(0).where(zero, g));
            }
            case BROADCAST -> give(grads, a.get(0), full(g, n.shape(), n).sum());
            case SUM -> give(grads, a.get(0), g.broadcastTo(a.get(0).shape().last()));
            case MEAN -> give(grads, a.get(0), g.mul(1.0 / a.get(0).shape().last().size()).broadcastTo(a.get(0).shape().last()));
            case AMAX -> give(grads, a.get(0), a.get(0).eq(n).mul(g));
            case SLICE -> give(grads, a.get(0), full(g, n.shape(), n).scatter(n.start(), n.step(), a.get(0).shape().last()));
            case SCATTER -> give(grads, a.get(0), full(g, n.shape(), n).slice(n.start(), (int) a.get(0).shape().last().size(), n.step()));
            case CAT -> {
                Expr fg = full(g, n.shape(), n);
                int offset = 0;
                for (Expr part : a) {
                    int len = (int) part.shape().last().size();
                    give(grads, part, fg.slice(offset, len));
                    offset += len;
                }
            }
            case INTERLEAVE -> {
                Expr fg = full(g, n.shape(), n);
                give(grads, a.get(0), fg.evens());
                give(grads, a.get(1), fg.odds());
            }
            case CMUL -> {
                Expr fg = full(g, n.shape(), n);
                give(grads, a.get(0), fg.cmul(a.get(1).conj()));
                give(grads, a.get(1), fg.cmul(a.get(0).conj()));
            }
            case CONJ -> give(grads, a.get(0), full(g, n.shape(), n).conj());
            case SUM_TO -> give(grads, a.get(0), g);
            default -> throw new ExprException("cannot differentiate " + n.describe());
        }
    }

    /** Adds a contribution, first summing it over the dims the operand was broadcast along. */
    private static void give(Map<Expr, Expr> grads, Expr operand, Expr g) {
        if (operand.isScalar() || !needsGrad(operand)) return;
        accumulate(grads, operand, unbroadcast(g, operand.shape()));
    }

    private static void accumulate(Map<Expr, Expr> grads, Expr node, Expr g) {
        grads.merge(node, g, Expr::add);
    }

    /** Whether any input below the node requires a gradient (constants and data get none). */
    private static boolean needsGrad(Expr e) {
        return NEEDS.computeIfAbsent(e, x -> x.op() == Op.INPUT ? x.requiresGrad() : x.args().stream().anyMatch(Autodiff::needsGrad));
    }

    private static final Map<Expr, Boolean> NEEDS = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private static Expr unbroadcast(Expr g, Shape target) {
        while (!g.isScalar() && !lastMapped(g.shape(), target)) g = g.sum();
        if (g.shape().rank() > target.rank()) g = g.sumTo(target);
        return g;
    }

    private static boolean lastMapped(Shape wide, Shape target) {
        int[] at = wide.embed(target);
        if (at == null) throw new ExprException("gradient of shape " + wide + " does not broadcast to " + target);
        for (int k : at) if (k == wide.rank() - 1) return true;
        return false;
    }

    /** The gradient widened to the node's full shape, where a primitive needs the whole row. */
    private static Expr full(Expr g, Shape shape, Expr node) {
        if (g.shape().rank() == shape.rank() && g.shape().sameSizes(shape)) return g;
        if (g.isScalar() || !shape.covers(g.shape())) throw new ExprException("gradient " + g.describe() + " of " + node.describe() + " does not broadcast to it");
        if (g.shape().rank() == shape.rank() - 1 && shape.rowDims().sameSizes(g.shape())) return g.broadcastTo(shape.last());
        throw new ExprException("cannot widen the gradient " + g.describe() + " to " + node.describe() + " (it lacks a row dim)");
    }
}
