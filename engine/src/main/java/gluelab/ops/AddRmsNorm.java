package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * Residual add then RMSNorm: h = x + r, y = rmsnorm(h) * w; both h (the residual stream) and y are
 * outputs. Backward takes dy and dh (the grad reaching h along the residual path) and gives
 * dx (which is also dr) and dw.
 */
public final class AddRmsNorm implements GlueOp {
    @Override public String name() { return "add_rmsnorm"; }

    @Override public String summary() { return "residual add + RMSNorm: h = x + r; y = rmsnorm(h) * w"; }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        return new OpShape(name(), Map.of("T", tokens, "D", (long) spec.hidden()), dtype, Map.of("eps", spec.normEps()));
    }

    @Override public boolean supports(Pass pass) { return true; }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        long t = s.tokens(), d = s.dim("D");
        DType dt = s.dtype();
        return pass == Pass.FORWARD
                ? List.of(TensorSpec.of("x", dt, t, d), TensorSpec.of("r", dt, t, d), TensorSpec.of("w", dt, d))
                : List.of(TensorSpec.of("h", dt, t, d), TensorSpec.of("w", dt, d), TensorSpec.of("dy", dt, t, d), TensorSpec.of("dh", dt, t, d));
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        long t = s.tokens(), d = s.dim("D");
        DType dt = s.dtype();
        return pass == Pass.FORWARD
                ? List.of(TensorSpec.of("h", dt, t, d), TensorSpec.of("y", dt, t, d))
                : List.of(TensorSpec.of("dx", dt, t, d), TensorSpec.of("dw", dt, d));
    }

    @Override public long flops(OpShape s, Pass pass) {
        long n = s.tokens() * s.dim("D");
        return pass == Pass.FORWARD ? 5 * n : 11 * n;
    }


    @Override public void fillInputs(OpShape s, Pass pass, Map<String, Tensor> in, long seed) {
        long salt = 0;
        for (Map.Entry<String, Tensor> e : in.entrySet()) {
            if (e.getKey().equals("w")) Fill.uniform(e.getValue(), seed + 100, 0.5, 1.5);
            else Fill.uniform(e.getValue(), seed + salt++, -1, 1);
        }
    }

    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        int t = (int) s.tokens(), d = (int) s.dim("D");
        double eps = s.param("eps");
        if (pass == Pass.FORWARD) {
            double[] x = in.get("x"), r = in.get("r"), h = new double[t * d], y = new double[t * d];
            // h is stored in the activation dtype, and the norm reads the stored h, as every implementation does.
            for (int i = 0; i < h.length; i++) h[i] = s.dtype().round(x[i] + r[i]);
            RowNorm.forward(h, in.get("w"), y, t, d, eps);
            return Map.of("h", h, "y", y);
        }
        double[] dx = new double[t * d], dw = new double[d], dh = in.get("dh");
        RowNorm.backward(in.get("h"), in.get("w"), in.get("dy"), dx, dw, t, d, eps);
        for (int i = 0; i < dx.length; i++) dx[i] += dh[i];
        return Map.of("dx", dx, "dw", dw);
    }
}
