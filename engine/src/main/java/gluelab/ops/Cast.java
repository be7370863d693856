package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * Cast of a hidden-state tensor to fp32 (the upcast before a loss or an fp32 reduction). EAGER
 * converts element by element through the generic path; FUSED converts a row at a time.
 */
public final class Cast implements GlueOp {
    @Override public String name() { return "cast"; }

    @Override public String summary() { return "cast of the hidden state to fp32"; }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        return new OpShape(name(), Map.of("T", tokens, "D", (long) spec.hidden()), dtype, Map.of());
    }

    @Override public boolean supports(Pass pass) { return pass == Pass.FORWARD; }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        requireSupports(pass);
        return List.of(TensorSpec.of("x", s.dtype(), s.tokens(), s.dim("D")));
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        requireSupports(pass);
        return List.of(TensorSpec.of("y", DType.FP32, s.tokens(), s.dim("D")));
    }

    @Override public long flops(OpShape s, Pass pass) { return 0; }


    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        return Map.of("y", in.get("x").clone());
    }
}
