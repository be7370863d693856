package gluelab.device;

import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Variant;

/** One op at one shape, pass and variant: the unit that is prepared, timed and checked. */
public record OpInstance(GlueOp op, OpShape shape, Pass pass, Variant variant) {
    public OpInstance {
        op.requireSupports(pass);
    }

    public String label() { return op.name() + "/" + pass.id() + "/" + variant.id() + "@T=" + shape.tokens(); }

    /** Every input and output this instance needs, looked up in {@code args} and checked against its spec. */
    public java.util.Map<String, Buffer> bind(java.util.Map<String, Buffer> args) {
        java.util.Map<String, Buffer> out = new java.util.HashMap<>();
        java.util.List<gluelab.tensor.TensorSpec> specs = new java.util.ArrayList<>(op.inputs(shape, pass));
        specs.addAll(op.outputs(shape, pass));
        for (gluelab.tensor.TensorSpec s : specs) {
            Buffer b = args.get(s.name());
            if (b == null) throw new IllegalArgumentException(label() + ": missing argument '" + s.name() + "' " + s);
            if (!b.spec().equals(s)) throw new IllegalArgumentException(label() + ": argument '" + s.name() + "' is " + b.spec() + ", expected " + s);
            out.put(s.name(), b);
        }
        return out;
    }
}
