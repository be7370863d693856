package gluelab.bench;

import gluelab.device.Device;
import gluelab.model.ModelSpec;
import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * What to measure: ops x token counts x passes, each with the listed variants screened together.
 * Passes an op does not have are skipped. {@code checkTokens} is the (small) size at which
 * correctness is checked against fp64; 0 turns checks off.
 */
public record BenchPlan(ModelSpec spec, List<GlueOp> ops, List<Long> tokens, List<Variant> variants, List<Pass> passes,
                        DType dtype, TimingConfig timing, long checkTokens) {
    public BenchPlan {
        ops = List.copyOf(ops);
        tokens = List.copyOf(tokens);
        variants = List.copyOf(variants);
        passes = List.copyOf(passes);
        if (ops.isEmpty()) throw new IllegalArgumentException("no ops to measure");
        if (tokens.isEmpty()) throw new IllegalArgumentException("no token counts to measure");
        if (variants.isEmpty()) throw new IllegalArgumentException("no variants to measure");
        if (passes.isEmpty()) throw new IllegalArgumentException("no passes to measure");
        for (long t : tokens) Tokens.check(t, Long.toString(t));
        if (!dtype.isFloating()) throw new IllegalArgumentException("activation dtype must be floating, got " + dtype.id());
    }

    /** One group measured together: its variants are interleaved. */
    public record Group(GlueOp op, OpShape shape, Pass pass) {
        public long argumentBytes() {
            long sum = 0;
            for (TensorSpec t : op.inputs(shape, pass)) sum += t.bytes();
            for (TensorSpec t : op.outputs(shape, pass)) sum += t.bytes();
            return sum;
        }
    }

    public List<Group> groups() {
        List<Group> out = new ArrayList<>();
        for (long t : tokens) {
            for (GlueOp op : ops) {
                for (Pass p : passes) {
                    if (op.supports(p)) out.add(new Group(op, op.shape(spec, t, dtype), p));
                }
            }
        }
        return out;
    }

    /** Fails before anything is allocated when a group cannot fit in the device's memory. */
    public void checkFits(Device device) {
        long available = device.availableMemory();
        for (Group g : groups()) {
            // Eager variants hold intermediates; allow three times the arguments for them.
            long need = g.argumentBytes() * (variants.contains(Variant.EAGER) ? 4 : 1);
            if (need > available) {
                throw new IllegalArgumentException(String.format(
                        "%s at %d tokens needs about %.1f GiB but %s has %.1f GiB available; use fewer tokens",
                        g.op().name(), g.shape().tokens(), need / 1073741824.0, device.id(), available / 1073741824.0));
            }
        }
    }
}
