package gluelab.expr.catalogue;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.ExpressionVariant;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.expr.Expr;
import gluelab.expr.Glue;
import gluelab.expr.Region;
import gluelab.expr.workbench.Examples;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionLaunches;
import gluelab.ops.GlueOp;
import gluelab.ops.OpId;
import gluelab.ops.OpRegistry;
import gluelab.ops.QNormRope;
import gluelab.ops.Skip;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.tensor.DType;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The catalogue's ops written as glue expressions, with the catalogue's tensor names and layouts
 * (the same buffers, so the same checks and floors apply): variant {@code region} of {@code bench}
 * runs their generated fused regions beside the hand-written kernels. Every op but MoE routing
 * (top-k is not an expression here) has one, forward and, where the catalogue has it, backward.
 * Backwards come from reverse-mode differentiation; add+rmsnorm's reads the saved sum h (as the
 * catalogue's hand kernel: h, w, dy, dh in; dx, which is also the residual's gradient, and dw out).
 */
public final class CatalogueRegions implements ExpressionVariant {
    /** A region and the catalogue names of the tensors it calls differently (catalogue name -> region name). */
    public record Expressed(Region region, Map<String, String> renamed) {}

    /** One op's expression at a shape and pass (fwd, or bwd where the catalogue has it). */
    @FunctionalInterface
    public interface Expression {
        Expressed at(GlueOp op, OpShape s, Pass pass);
    }

    /** One file's expressions (or declared skips), listed in {@code META-INF/services/gluelab.expr.catalogue.CatalogueRegions$Entries}. */
    public interface Entries extends OpRegistry.Entries<Expression> {}

    /** The catalogue's own expressions (below). */
    public static final class Builtin implements Entries {
        @Override public void register(OpRegistry.Builder<Expression> r) {
            r.add(OpId.of("rmsnorm"), CatalogueRegions::rmsnorm)
                    .add(OpId.of("add_rmsnorm"), (op, s, pass) -> new Expressed(pass == Pass.FORWARD ? addRmsnorm(s) : addRmsnorm(s).backward(), Map.of()))
                    .add(OpId.of("qnorm_rope_complex"), CatalogueRegions::qnormRope)
                    .add(OpId.of("qnorm_rope_real"), CatalogueRegions::qnormRope)
                    .add(OpId.of("swiglu"), CatalogueRegions::swiglu)
                    .skip(OpId.of("moe_routing"), "top-k is not an expression")
                    .add(OpId.of("cat"), CatalogueRegions::cat)
                    .add(OpId.of("cast"), CatalogueRegions::cast);
        }
    }

    private static final OpRegistry<Expression> REGISTRY = registry(CatalogueRegions.class.getClassLoader());

    /** The expression regions registry. */
    public static OpRegistry<Expression> registry() { return REGISTRY; }

    /** The expressions listed in the service files {@code loader} sees. */
    public static OpRegistry<Expression> registry(ClassLoader loader) { return OpRegistry.discover("expression regions", Entries.class, loader); }

    @Override public boolean supports(GlueOp op, Pass pass) { return op.supports(pass) && REGISTRY.find(op.id()).isPresent(); }

    @Override public Optional<Skip> skip(GlueOp op, Pass pass) {
        if (!op.supports(pass)) return Optional.empty();
        return REGISTRY.skip(op.id()).map(s -> new Skip(op.name() + " " + pass.id() + " region", s.reason()));
    }

    private static final Map<Device, RegionTuning> TUNING = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** The op's region launched in the tuner's stored pick for this instance, else the default configuration. */
    @Override public Launch prepare(Device device, OpInstance in, Map<String, Buffer> args) {
        return prepare(device, in, args, tuning(device).map(t -> t.chosenLaunch(in)).orElse(null));
    }

    /** Variant region's configurations for the autotuner, on a device that has tunable kernels. */
    @Override public Optional<gluelab.device.Tunable> tunable(Device device) { return tuning(device).map(t -> t); }

    private static Optional<RegionTuning> tuning(Device device) {
        Optional<gluelab.device.Tunable> own = device.tunable();
        return own.map(t -> TUNING.computeIfAbsent(device, d -> new RegionTuning(d, t)));
    }

    /** The op's region in one launch configuration (null: the default). */
    static Launch prepare(Device device, OpInstance in, Map<String, Buffer> args, gluelab.expr.cuda.LaunchConfig config) {
        Expressed e = of(in.op(), in.shape(), in.pass())
                .orElseThrow(() -> new IllegalArgumentException("op " + in.op().name() + " " + in.pass().id() + " has no expression (variant region); use fused"));
        Map<String, Buffer> named = new HashMap<>();
        args.forEach((name, b) -> named.put(e.renamed().getOrDefault(name, name), b));
        Map<String, Double> params = new HashMap<>();
        if (in.shape().params().containsKey("eps")) params.put("eps", in.shape().param("eps"));
        return RegionLaunches.prepare(device, e.region(), Lowering.FUSED, config, named, params);
    }

    /** The op's expression at a shape and pass, if it has one. */
    public static Optional<Expressed> of(GlueOp op, OpShape s, Pass pass) {
        if (!op.supports(pass)) return Optional.empty();
        return REGISTRY.find(op.id()).map(e -> e.at(op, s, pass));
    }

    private static Expressed rmsnorm(GlueOp op, OpShape s, Pass pass) {
        Region r = Examples.rmsnorm(Glue.dims("T", s.tokens(), "D", s.dim("D")), s.dtype().id());
        return new Expressed(pass == Pass.FORWARD ? r : r.backward(), Map.of());
    }

    private static Expressed qnormRope(GlueOp op, OpShape s, Pass pass) {
        Glue g = Glue.dims("T", s.tokens(), "H", s.dim("H"), "HD", s.dim("HD"), "HD2", s.dim("HD") / 2);
        boolean complex = ((QNormRope) op).form() == QNormRope.Form.COMPLEX, fwd = pass == Pass.FORWARD;
        Region r = complex ? Examples.qnormRopeComplex(g, s.dtype().id()) : qnormRopeInterleaved(g, s.dtype());
        return new Expressed(fwd ? r : r.backward(), fwd ? Map.of() : Map.of("dy", "dout"));
    }

    private static Expressed swiglu(GlueOp op, OpShape s, Pass pass) {
        DType dt = s.dtype();
        boolean fwd = pass == Pass.FORWARD;
        Glue g = Glue.dims("T", s.tokens(), "F", s.dim("F"));
        Expr gate = g.input("gate", dt, "T", "F"), up = g.input("up", dt, "T", "F");
        Region r = g.region("swiglu").out("out", gate.silu().mul(up).cast(dt));
        return new Expressed(fwd ? r : r.backward(), fwd ? Map.of() : Map.of("dy", "dout"));
    }

    private static Expressed cat(GlueOp op, OpShape s, Pass pass) {
        DType dt = s.dtype();
        long half = s.dim("D") / 2;
        Glue g = Glue.dims("T", s.tokens(), "A", half, "B", s.dim("D") - half);
        return new Expressed(g.region("cat").out("out", g.data("a", dt, "T", "A").cat(g.data("b", dt, "T", "B"))), Map.of());
    }

    private static Expressed cast(GlueOp op, OpShape s, Pass pass) {
        Glue g = Glue.dims("T", s.tokens(), "D", s.dim("D"));
        return new Expressed(g.region("cast").out("y", g.data("x", s.dtype(), "T", "D").cast(DType.FP32)), Map.of());
    }

    /** h = x + r (kept for the next layer), y = rmsnorm(h): the catalogue names its residual input r. */
    static Region addRmsnorm(OpShape s) {
        Glue g = Glue.dims("T", s.tokens(), "D", s.dim("D"));
        Expr x = g.input("x", s.dtype(), "T", "D"), r = g.input("r", s.dtype(), "T", "D"), w = g.input("w", s.dtype(), "D");
        Expr h = x.add(r);
        return g.region("add_rmsnorm").out("h", h).out("y", Examples.rmsnorm(g, h, w));
    }

    /** The catalogue's real form: RoPE on interleaved pairs (q[2i], q[2i+1]) with cos and sin tables. */
    static Region qnormRopeInterleaved(Glue g, DType dt) {
        Expr q = g.input("q", dt, "T", "H", "HD"), w = g.input("w", dt, "HD");
        Expr cos = g.data("cos", DType.FP32, "T", "HD2"), sin = g.data("sin", DType.FP32, "T", "HD2");
        Expr n = Examples.normalized(g, q, w), a = n.evens(), b = n.odds();
        return g.region("qnorm_rope_real").out("out", a.mul(cos).sub(b.mul(sin)).interleave(a.mul(sin).add(b.mul(cos))).cast(dt));
    }
}
