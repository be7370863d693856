package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * Concatenation of two halves along the last dim, out = cat([a, b], -1), at the q width (H x HD),
 * as when the rotary and plain parts of a head are joined. EAGER is the framework's generic
 * per-element cat; FUSED copies whole row blocks.
 */
public final class Cat implements GlueOp {
    @Override public String name() { return "cat"; }

    @Override public String summary() { return "cat of two halves along the last dim"; }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        return new OpShape(name(), Map.of("T", tokens, "D", (long) spec.heads() * spec.headDim()), dtype, Map.of());
    }

    @Override public boolean supports(Pass pass) { return pass == Pass.FORWARD; }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        requireSupports(pass);
        long t = s.tokens(), half = s.dim("D") / 2;
        return List.of(TensorSpec.of("a", s.dtype(), t, half), TensorSpec.of("b", s.dtype(), t, s.dim("D") - half));
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        requireSupports(pass);
        return List.of(TensorSpec.of("out", s.dtype(), s.tokens(), s.dim("D")));
    }

    @Override public long flops(OpShape s, Pass pass) { return 0; }


    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        int t = (int) s.tokens(), d = (int) s.dim("D"), half = d / 2;
        double[] a = in.get("a"), b = in.get("b"), out = new double[t * d];
        for (int row = 0; row < t; row++) {
            System.arraycopy(a, row * half, out, row * d, half);
            System.arraycopy(b, row * (d - half), out, row * d + half, d - half);
        }
        return Map.of("out", out);
    }
}
