package gluelab.expr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A function of glue: named outputs over the inputs and parameters they reach. The unit that is
 * lowered (to an eager tree or one fused kernel), differentiated, floored and timed. Immutable:
 * {@link #out} returns a new region.
 */
public final class Region {
    private final String name;
    private final Map<String, Expr> declared;
    private final Glue glue;
    private Resolved resolved;

    /** The region's nodes in evaluation order with references substituted. */
    private record Resolved(List<Expr> nodes, Map<String, Expr> outputs, Map<String, Expr> written, List<Expr> inputs, List<Expr> params) {}

    Region(String name, Map<String, Expr> outputs, Glue glue) {
        if (name == null || name.isBlank()) throw new ExprException("a region needs a name");
        this.name = name;
        this.declared = Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
        this.glue = glue;
    }

    /** A region over outputs built without a {@link Glue} (no references). */
    public static Region of(String name, Map<String, Expr> outputs) { return new Region(name, outputs, null); }

    public String name() { return name; }

    /** This region with one more output. */
    public Region out(String outputName, Expr e) {
        if (declared.containsKey(outputName)) throw new ExprException("region '" + name + "' already has an output '" + outputName + "'");
        if (e.isScalar()) throw new ExprException("output '" + outputName + "' of region '" + name + "' is the scalar " + e.describe() + "; outputs are tensors");
        Map<String, Expr> m = new LinkedHashMap<>(declared);
        m.put(outputName, e);
        return new Region(name, m, glue);
    }

    /** The same computation under another name. */
    public Region named(String newName) { return new Region(newName, declared, glue); }

    /**
     * Every output by name. Two names may map to one node (dx = dresidual of an add): that value
     * is written once, into the buffer of the first name ({@link #written}); the later names are
     * aliases of it ({@link #bufferOf}).
     */
    public Map<String, Expr> outputs() { return resolve().outputs; }

    /** The outputs that are written, one per distinct value, each under the first name that has it. */
    public Map<String, Expr> written() { return resolve().written; }

    /** The name of the written output whose buffer holds output {@code outputName} (itself unless an alias). */
    public String bufferOf(String outputName) {
        Expr e = outputs().get(outputName);
        if (e == null) throw new ExprException("region '" + name + "' has no output '" + outputName + "'; outputs: " + outputs().keySet());
        for (Map.Entry<String, Expr> w : written().entrySet()) if (w.getValue() == e) return w.getKey();
        throw new IllegalStateException("output '" + outputName + "' is not written");
    }

    /** Every node, operands before their users. */
    public List<Expr> nodes() { return resolve().nodes; }

    /** Inputs in the order the region first reads them (the kernel's argument order). */
    public List<Expr> inputs() { return resolve().inputs; }

    public List<Expr> params() { return resolve().params; }

    public Expr input(String inputName) {
        for (Expr e : inputs()) if (e.name().equals(inputName)) return e;
        throw new ExprException("region '" + name + "' has no input '" + inputName + "'; inputs: " + inputs().stream().map(Expr::name).toList());
    }

    /** What the compiled kernel is keyed by: structure, shapes, dtypes; never names or callers. */
    public Signature signature() { return Signature.of(this); }

    /** The gradient region: inputs, the outputs' gradients (d + name) in; every input's gradient out. */
    public Region backward() { return Autodiff.backward(this); }

    /**
     * This region's outputs that its backward reads back as inputs of the same name instead of
     * recomputing them (add+rmsnorm's h): a caller feeds them from the forward's results.
     */
    public List<String> savedOutputs() {
        return backward().inputs().stream().map(Expr::name).filter(outputs()::containsKey).toList();
    }

    /** C = this region then {@code next}, where next reads this region's outputs as inputs of the same name. */
    public Region then(Region next) { return Composition.then(this, next); }

    @Override public String toString() {
        return "region " + name + " " + inputs().stream().map(e -> e.name() + e.shape()).toList() + " -> " + outputs().keySet();
    }

    private synchronized Resolved resolve() {
        if (resolved != null) return resolved;
        if (declared.isEmpty()) throw new ExprException("region '" + name + "' has no outputs; add them with out(name, expr)");
        Map<Expr, Expr> memo = new IdentityHashMap<>();
        Map<Expr, Boolean> onPath = new IdentityHashMap<>();
        List<Expr> order = new ArrayList<>();
        Map<String, Expr> outs = new LinkedHashMap<>(), written = new LinkedHashMap<>();
        Map<Expr, Boolean> once = new IdentityHashMap<>();
        for (Map.Entry<String, Expr> o : declared.entrySet()) {
            Expr e = visit(o.getValue(), memo, onPath, new ArrayList<>(), order);
            // Two outputs of one value (dx = dresidual): one write, the second name an alias of the first.
            if (once.put(e, true) == null) written.put(o.getKey(), e);
            outs.put(o.getKey(), e);
        }
        List<Expr> inputs = new ArrayList<>(), params = new ArrayList<>();
        Map<String, Expr> byName = new HashMap<>();
        for (Expr e : order) {
            if (e.op() != Op.INPUT && e.op() != Op.PARAM) continue;
            Expr seen = byName.putIfAbsent(e.name(), e);
            if (seen != null && seen != e) {
                throw new ExprException("region '" + name + "' has two different leaves named '" + e.name() + "': " + seen.describe() + " and " + e.describe());
            }
            (e.op() == Op.INPUT ? inputs : params).add(e);
        }
        for (String o : outs.keySet()) {
            if (byName.containsKey(o)) throw new ExprException("region '" + name + "': output '" + o + "' has the name of an input");
        }
        resolved = new Resolved(List.copyOf(order), Collections.unmodifiableMap(outs), Collections.unmodifiableMap(written), List.copyOf(inputs), List.copyOf(params));
        return resolved;
    }

    /** Depth-first, substituting references; a node met again on its own path is a cycle. */
    private Expr visit(Expr e, Map<Expr, Expr> memo, Map<Expr, Boolean> onPath, List<Expr> path, List<Expr> order) {
        Expr done = memo.get(e);
        if (done != null) return done;
        if (onPath.containsKey(e)) {
            StringBuilder cycle = new StringBuilder();
            for (int i = path.indexOf(e); i < path.size(); i++) cycle.append(path.get(i).describe()).append(" -> ");
            throw new ExprException("region '" + name + "' has a cycle: " + cycle + e.describe());
        }
        onPath.put(e, true);
        path.add(e);
        Expr out;
        if (e.op() == Op.REF) {
            if (glue == null) throw new ExprException("reference " + e.describe() + " in a region built without its Glue");
            Expr bound = glue.binding(e);
            if (!bound.shape().sameSizes(e.shape())) {
                throw new ExprException("reference " + e.describe() + " is bound to " + bound.describe() + " of another shape");
            }
            out = visit(bound, memo, onPath, path, order);
        } else {
            List<Expr> args = new ArrayList<>();
            boolean same = true;
            for (Expr a : e.args()) {
                Expr r = visit(a, memo, onPath, path, order);
                same &= r == a;
                args.add(r);
            }
            out = same ? e : e.withArgs(args);
            order.add(out);
        }
        path.removeLast();
        onPath.remove(e);
        memo.put(e, out);
        return out;
    }
}
