package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * MoE router glue: scores = softmax or sigmoid over E expert logits, pick the top K (ties go to the
 * lower expert index), renormalise the picked scores to sum to 1. Outputs fp32 weights and int64
 * expert indices. Dense specs get the anchor table's 64 experts, top-8.
 */
public final class MoeRouting implements GlueOp {
    @Override public String name() { return "moe_routing"; }

    @Override public String summary() { return "MoE routing: softmax/sigmoid over E experts, top-k, renormalise"; }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        long e = spec.isMoe() ? spec.experts() : 64, k = spec.isMoe() ? spec.topK() : 8;
        String score = spec.routerScore() == null ? "softmax" : spec.routerScore();
        return new OpShape(name(), Map.of("T", tokens, "E", e, "K", k), dtype, Map.of("score", score));
    }

    @Override public boolean supports(Pass pass) { return pass == Pass.FORWARD; }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        requireSupports(pass);
        return List.of(TensorSpec.of("logits", s.dtype(), s.tokens(), s.dim("E")));
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        requireSupports(pass);
        return List.of(TensorSpec.of("weights", DType.FP32, s.tokens(), s.dim("K")),
                TensorSpec.of("indices", DType.I64, s.tokens(), s.dim("K")));
    }

    @Override public long flops(OpShape s, Pass pass) {
        long t = s.tokens(), e = s.dim("E"), k = s.dim("K");
        return t * (4 * e + e * k + 2 * k);
    }


    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        int t = (int) s.tokens(), e = (int) s.dim("E"), k = (int) s.dim("K");
        boolean softmax = s.text("score").equals("softmax");
        double[] logits = in.get("logits"), weights = new double[t * k], indices = new double[t * k];
        double[] scores = new double[e];
        boolean[] taken = new boolean[e];
        for (int row = 0; row < t; row++) {
            double max = Double.NEGATIVE_INFINITY, sum = 0;
            for (int j = 0; j < e; j++) max = Math.max(max, logits[row * e + j]);
            for (int j = 0; j < e; j++) {
                double v = logits[row * e + j];
                scores[j] = softmax ? Math.exp(v - max) : SwiGlu.sigmoid(v);
                sum += scores[j];
            }
            if (softmax) for (int j = 0; j < e; j++) scores[j] /= sum;
            java.util.Arrays.fill(taken, false);
            double picked = 0;
            for (int slot = 0; slot < k; slot++) {
                int best = -1;
                for (int j = 0; j < e; j++) if (!taken[j] && (best < 0 || scores[j] > scores[best])) best = j;
                taken[best] = true;
                indices[row * k + slot] = best;
                weights[row * k + slot] = scores[best];
                picked += scores[best];
            }
            for (int slot = 0; slot < k; slot++) weights[row * k + slot] /= picked;
        }
        return Map.of("weights", weights, "indices", indices);
    }
}
