package gluelab.expr;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a cell writes glue: the model's dims by name (T tokens, D hidden, H heads, KV kv heads,
 * HD head dim, HD2 half of it, R rope dims, R2 half of them, NOPE head dims without RoPE, F SwiGLU
 * width, E experts, K top-k), named inputs and scalar parameters.
 *
 * <pre>
 * var g = Glue.of(spec, 4096);
 * var x = g.input("x", "bf16", "T", "D");
 * var w = g.input("w", "bf16", "D");
 * var y = x.mul(x.square().mean().add(g.param("eps", 1e-5)).rsqrt()).mul(w);
 * var rms = g.region("rmsnorm").out("y", y);
 * </pre>
 */
public final class Glue {
    private final Map<String, Dim> dims = new LinkedHashMap<>();
    private final Map<String, Expr> leaves = new HashMap<>();
    private final Map<String, Expr> bindings = new HashMap<>();

    private Glue() {}

    public static Glue of(ModelSpec spec, long tokens) {
        Glue g = new Glue();
        g.dim("T", tokens).dim("D", spec.hidden()).dim("H", spec.heads()).dim("HD", spec.headDim()).dim("R", spec.ropeHeadDim())
                .dim("F", spec.swigluWidth()).dim("HD2", spec.headDim() / 2).dim("R2", spec.ropeHeadDim() / 2);
        if (spec.headDim() > spec.ropeHeadDim()) g.dim("NOPE", spec.headDim() - spec.ropeHeadDim());
        if (spec.kvHeads() > 0) g.dim("KV", spec.kvHeads());
        if (spec.isMoe()) g.dim("E", spec.experts()).dim("K", spec.topK());
        return g;
    }

    /** Dims given directly, e.g. {@code Glue.dims("T", 16, "D", 64)}. */
    public static Glue dims(Object... nameSizePairs) {
        if (nameSizePairs.length % 2 != 0) throw new IllegalArgumentException("give dims as name, size pairs");
        Glue g = new Glue();
        for (int i = 0; i < nameSizePairs.length; i += 2) g.dim((String) nameSizePairs[i], ((Number) nameSizePairs[i + 1]).longValue());
        return g;
    }

    /** Adds or replaces a dim. */
    public Glue dim(String name, long size) {
        dims.put(name, new Dim(name, size));
        return this;
    }

    public Dim dim(String name) {
        Dim d = dims.get(name);
        if (d == null) throw new ExprException("unknown dim '" + name + "'; known: " + dims.values());
        return d;
    }

    public Shape shape(String... names) {
        List<Dim> list = new ArrayList<>();
        for (String n : names) list.add(dim(n));
        try {
            return new Shape(list);
        } catch (IllegalArgumentException e) {
            throw new ExprException(e.getMessage());
        }
    }

    /** An input the backward computes a gradient for. */
    public Expr input(String name, DType dtype, String... dimNames) { return leaf(name, dtype, true, dimNames); }

    public Expr input(String name, String dtype, String... dimNames) { return input(name, DType.parse(dtype), dimNames); }

    /** An input without a gradient: a RoPE table, a mask, a routing score that is not trained. */
    public Expr data(String name, DType dtype, String... dimNames) { return leaf(name, dtype, false, dimNames); }

    public Expr data(String name, String dtype, String... dimNames) { return data(name, DType.parse(dtype), dimNames); }

    private Expr leaf(String name, DType dtype, boolean grad, String... dimNames) {
        requireName(name);
        Dtypes.requireSupported(dtype, "input '" + name + "'");
        if (dimNames.length == 0) throw new ExprException("input '" + name + "' needs at least one dim; use param() for a scalar");
        Expr e = Expr.leaf(Op.INPUT, shape(dimNames), dtype, name, 0, grad);
        leaves.put(name, e);
        return e;
    }

    /** A scalar passed to the kernel at launch (eps, a scale): changing it never recompiles. */
    public Expr param(String name, double value) {
        requireName(name);
        Expr seen = leaves.get(name);
        if (seen != null && seen.op() == Op.PARAM && seen.num() == value) return seen;
        Expr e = Expr.leaf(Op.PARAM, Shape.SCALAR, DType.FP32, name, value, false);
        leaves.put(name, e);
        return e;
    }

    /** A scalar compiled into the kernel. */
    public static Expr constant(double value) { return Expr.leaf(Op.CONST, Shape.SCALAR, DType.FP32, null, value, false); }

    /** Names a result so other cells can refer to it with {@link #ref}, in any order. */
    public Expr let(String name, Expr e) {
        Expr placeholder = bindings.get("?" + name);
        if (placeholder != null && !placeholder.shape().sameSizes(e.shape())) {
            throw new ExprException("let '" + name + "' = " + e.describe() + ": it was referred to as " + placeholder.shape());
        }
        bindings.put(name, e);
        return e;
    }

    /** The result named {@code name}, bound now or later with {@link #let}; shaped like {@code like}. */
    public Expr ref(String name, Expr like) {
        Expr bound = bindings.get(name);
        if (bound != null) return bound;
        Expr e = Expr.leaf(Op.REF, like.shape(), like.dtype(), name, 0, false);
        bindings.putIfAbsent("?" + name, e);
        return e;
    }

    Expr binding(Expr ref) {
        Expr e = bindings.get(ref.name());
        if (e == null) throw new ExprException("reference '" + ref.name() + "' " + ref.shape() + " is never bound with let()");
        return e;
    }

    /** A region with no outputs yet: add them with {@link Region#out}. */
    public Region region(String name) { return new Region(name, new LinkedHashMap<>(), this); }

    private void requireName(String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_.]*")) throw new ExprException("a name must be an identifier, got '" + name + "'");
    }
}
