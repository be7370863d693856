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
}
