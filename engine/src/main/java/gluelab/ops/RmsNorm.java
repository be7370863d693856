package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/** y = x * rsqrt(mean(x^2) + eps) * w over the hidden dim. */
public final class RmsNorm implements GlueOp {
    @Override public String name() { return "rmsnorm"; }

    @Override public String summary() { return "RMSNorm over the hidden dim: y = x * rsqrt(mean(x^2) + eps) * w"; }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        return new OpShape(name(), Map.of("T", tokens, "D", (long) spec.hidden()), dtype, Map.of("eps", spec.normEps()));
    }

    @Override public boolean supports(Pass pass) { return true; }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        long t = s.tokens(), d = s.dim("D");
        TensorSpec x = TensorSpec.of("x", s.dtype(), t, d), w = TensorSpec.of("w", s.dtype(), d);
        return pass == Pass.FORWARD ? List.of(x, w) : List.of(x, w, TensorSpec.of("dy", s.dtype(), t, d));
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        long t = s.tokens(), d = s.dim("D");
        return pass == Pass.FORWARD ? List.of(TensorSpec.of("y", s.dtype(), t, d))
                : List.of(TensorSpec.of("dx", s.dtype(), t, d), TensorSpec.of("dw", s.dtype(), d));
    }

    @Override public long flops(OpShape s, Pass pass) {
        long n = s.tokens() * s.dim("D");
        return pass == Pass.FORWARD ? 4 * n : 10 * n;
    }


    @Override public void fillInputs(OpShape s, Pass pass, Map<String, Tensor> in, long seed) {
        Fill.uniform(in.get("x"), seed, -2, 2);
        Fill.uniform(in.get("w"), seed + 1, 0.5, 1.5);
        if (in.containsKey("dy")) Fill.uniform(in.get("dy"), seed + 2, -1, 1);
    }

    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        int t = (int) s.tokens(), d = (int) s.dim("D");
        double eps = s.param("eps");
        if (pass == Pass.FORWARD) {
            double[] y = new double[t * d];
            RowNorm.forward(in.get("x"), in.get("w"), y, t, d, eps);
            return Map.of("y", y);
        }
        double[] dx = new double[t * d], dw = new double[d];
        RowNorm.backward(in.get("x"), in.get("w"), in.get("dy"), dx, dw, t, d, eps);
        return Map.of("dx", dx, "dw", dw);
    }
}
