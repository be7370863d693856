package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/** out = silu(gate) * up over the FFN width (the expert width for MoE models). */
public final class SwiGlu implements GlueOp {
    @Override public String name() { return "swiglu"; }

    @Override public String summary() { return "SwiGLU activation: out = silu(gate) * up"; }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        return new OpShape(name(), Map.of("T", tokens, "F", (long) spec.swigluWidth()), dtype, Map.of());
    }

    @Override public boolean supports(Pass pass) { return true; }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        long t = s.tokens(), f = s.dim("F");
        TensorSpec g = TensorSpec.of("gate", s.dtype(), t, f), u = TensorSpec.of("up", s.dtype(), t, f);
        return pass == Pass.FORWARD ? List.of(g, u) : List.of(g, u, TensorSpec.of("dy", s.dtype(), t, f));
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        long t = s.tokens(), f = s.dim("F");
        return pass == Pass.FORWARD ? List.of(TensorSpec.of("out", s.dtype(), t, f))
                : List.of(TensorSpec.of("dgate", s.dtype(), t, f), TensorSpec.of("dup", s.dtype(), t, f));
    }

    @Override public long flops(OpShape s, Pass pass) {
        long n = s.tokens() * s.dim("F");
        return pass == Pass.FORWARD ? 5 * n : 11 * n;
    }


    static double sigmoid(double x) { return 1.0 / (1.0 + Math.exp(-x)); }

    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        double[] g = in.get("gate"), u = in.get("up");
        if (pass == Pass.FORWARD) {
            double[] out = new double[g.length];
            for (int i = 0; i < g.length; i++) out[i] = g[i] * sigmoid(g[i]) * u[i];
            return Map.of("out", out);
        }
        double[] dy = in.get("dy"), dg = new double[g.length], du = new double[g.length];
        for (int i = 0; i < g.length; i++) {
            double sg = sigmoid(g[i]);
            du[i] = dy[i] * g[i] * sg;
            dg[i] = dy[i] * u[i] * sg * (1 + g[i] * (1 - sg));
        }
        return Map.of("dgate", dg, "dup", du);
    }
}
