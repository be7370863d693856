package gluelab.expr.catalogue;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.ExpressionVariant;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.expr.Expr;
import gluelab.expr.ExprException;
import gluelab.expr.Glue;
import gluelab.expr.Region;
import gluelab.expr.lab.Examples;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionLaunches;
import gluelab.ops.GlueOp;
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

    @Override public boolean supports(GlueOp op, Pass pass) {
        return op.supports(pass) && switch (op.name()) {
            case "rmsnorm", "add_rmsnorm", "qnorm_rope_complex", "qnorm_rope_real", "swiglu", "cat", "cast" -> true;
            default -> false;
        };
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
        if (!new CatalogueRegions().supports(op, pass)) return Optional.empty();
        DType dt = s.dtype();
        boolean fwd = pass == Pass.FORWARD;
        return Optional.of(switch (op.name()) {
            case "rmsnorm" -> {
                Glue g = Glue.dims("T", s.tokens(), "D", s.dim("D"));
                Region r = Examples.rmsnorm(g, dt.id());
                yield new Expressed(fwd ? r : r.backward(), Map.of());
            }
            case "add_rmsnorm" -> new Expressed(fwd ? addRmsnorm(s) : addRmsnorm(s).backward(), Map.of());
            case "qnorm_rope_complex", "qnorm_rope_real" -> {
                Glue g = Glue.dims("T", s.tokens(), "H", s.dim("H"), "HD", s.dim("HD"), "HD2", s.dim("HD") / 2);
                Region r = op.name().endsWith("complex") ? Examples.qnormRopeComplex(g, dt.id()) : qnormRopeInterleaved(g, dt);
                yield new Expressed(fwd ? r : r.backward(), fwd ? Map.of() : Map.of("dy", "dout"));
            }
            case "swiglu" -> {
                Glue g = Glue.dims("T", s.tokens(), "F", s.dim("F"));
                Expr gate = g.input("gate", dt, "T", "F"), up = g.input("up", dt, "T", "F");
                Region r = g.region("swiglu").out("out", gate.silu().mul(up).cast(dt));
                yield new Expressed(fwd ? r : r.backward(), fwd ? Map.of() : Map.of("dy", "dout"));
            }
            case "cat" -> {
                long half = s.dim("D") / 2;
                Glue g = Glue.dims("T", s.tokens(), "A", half, "B", s.dim("D") - half);
                yield new Expressed(g.region("cat").out("out", g.data("a", dt, "T", "A").cat(g.data("b", dt, "T", "B"))), Map.of());
            }
            case "cast" -> {
                Glue g = Glue.dims("T", s.tokens(), "D", s.dim("D"));
                yield new Expressed(g.region("cast").out("y", g.data("x", dt, "T", "D").cast(DType.FP32)), Map.of());
            }
            default -> throw new ExprException("op " + op.name() + " has no expression");
        });
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
