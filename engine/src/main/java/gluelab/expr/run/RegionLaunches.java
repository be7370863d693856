package gluelab.expr.run;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.expr.Expr;
import gluelab.expr.ExprException;
import gluelab.expr.Region;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.lower.EagerTree;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Regions bound to device buffers by name, eager or fused; and run once on host values. */
public final class RegionLaunches {
    private RegionLaunches() {}

    /**
     * The tensors a region reads and writes, by name, as buffers must be allocated: an output that
     * aliases another ({@link Region#bufferOf}) has no buffer of its own.
     */
    public static List<TensorSpec> tensors(Region r) {
        List<TensorSpec> out = new ArrayList<>();
        for (Expr in : r.inputs()) out.add(spec(in.name(), in));
        r.written().forEach((name, e) -> out.add(spec(name, e)));
        return out;
    }

    static TensorSpec spec(String name, Expr e) { return TensorSpec.of(name, e.dtype(), e.shape().sizes()); }

    public static Launch prepare(Device d, Region r, Lowering lowering, Map<String, Buffer> args, Map<String, Double> params) {
        return prepare(d, r, lowering, null, args, params);
    }

    /** A launch of the region over {@code args} (every input and output by name). */
    public static Launch prepare(Device d, Region r, Lowering lowering, LaunchConfig config, Map<String, Buffer> args, Map<String, Double> params) {
        for (TensorSpec s : tensors(r)) {
            Buffer b = args.get(s.name());
            if (b == null) throw new ExprException("region '" + r.name() + "': no buffer for '" + s.name() + "' " + s);
            if (b.spec().elements() != s.elements() || b.spec().dtype() != s.dtype()) {
                throw new ExprException("region '" + r.name() + "': buffer '" + s.name() + "' is " + b.spec() + ", expected " + s);
            }
        }
        RegionCompiler compiler = RegionCompiler.of(d);
        if (lowering == Lowering.FUSED) return bind(compiler.compile(r, config), r, args, params);
        EagerTree tree = EagerTree.of(r);
        Map<String, Buffer> slots = new HashMap<>(args);
        List<Buffer> scratch = new ArrayList<>();
        List<Launch> steps = new ArrayList<>();
        try {
            for (TensorSpec s : tree.intermediates().values()) {
                Buffer b = d.allocate(s);
                scratch.add(b);
                slots.put(s.name(), b);
            }
            for (EagerTree.Kernel k : tree.kernels()) steps.add(bind(compiler.compile(k.region()), k.region(), slots, params));
        } catch (RuntimeException e) {
            steps.forEach(Launch::close);
            scratch.forEach(Buffer::close);
            throw e;
        }
        return new Sequence(List.copyOf(steps), List.copyOf(scratch));
    }

    private static Launch bind(CompiledRegion c, Region r, Map<String, Buffer> slots, Map<String, Double> params) {
        List<Buffer> ins = new ArrayList<>(), outs = new ArrayList<>();
        for (Expr in : r.inputs()) ins.add(slots.get(in.name()));
        for (String o : r.written().keySet()) outs.add(slots.get(o));
        List<Expr> ps = r.params();
        float[] p = new float[ps.size()];
        for (int i = 0; i < p.length; i++) p[i] = params.getOrDefault(ps.get(i).name(), ps.get(i).num()).floatValue();
        return c.bind(ins, outs, p);
    }

    /** Runs the region once on host values (inputs by name, rounded to their dtypes); every output by name, aliases included. */
    public static Map<String, double[]> run(Device d, Region r, Lowering lowering, Map<String, double[]> inputs, Map<String, Double> params) {
        return run(d, r, lowering, null, inputs, params);
    }

    /** The same with a launch configuration for the fused region (null: the default). */
    public static Map<String, double[]> run(Device d, Region r, Lowering lowering, LaunchConfig config, Map<String, double[]> inputs, Map<String, Double> params) {
        Map<String, Buffer> buffers = new LinkedHashMap<>();
        try {
            for (TensorSpec s : tensors(r)) buffers.put(s.name(), d.allocate(s));
            for (Expr in : r.inputs()) {
                double[] v = inputs.get(in.name());
                if (v == null || v.length != in.shape().elements()) {
                    throw new ExprException("input '" + in.name() + "' " + in.shape() + " needs " + in.shape().elements() + " values, got " + (v == null ? "none" : v.length));
                }
                try (Tensor t = Tensor.allocate(spec(in.name(), in))) {
                    for (int i = 0; i < v.length; i++) t.setDouble(i, v[i]);
                    d.upload(t, buffers.get(in.name()));
                }
            }
            try (Launch l = prepare(d, r, lowering, config, buffers, params)) {
                l.run();
            }
            d.synchronize();
            Map<String, double[]> out = new LinkedHashMap<>();
            for (Map.Entry<String, Expr> o : r.outputs().entrySet()) {
                try (Tensor t = Tensor.allocate(spec(o.getKey(), o.getValue()))) {
                    d.download(buffers.get(r.bufferOf(o.getKey())), t);
                    out.put(o.getKey(), t.toDoubles());
                }
            }
            return out;
        } finally {
            buffers.values().forEach(Buffer::close);
        }
    }
}
