package gluelab.device.cpu;

import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;

import java.util.Map;

final class CpuRouting implements CpuKernels.OpKernels {
    @Override public Launch bind(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        var s = in.shape();
        long tokens = s.tokens();
        int e = (int) s.dim("E"), k = (int) s.dim("K");
        boolean softmax = s.text("score").equals("softmax");
        Tensor logits = t.get("logits"), weights = t.get("weights"), indices = t.get("indices");
        Program p = new Program();
        if (in.variant() == Variant.FUSED) {
            p.pass(() -> Primitives.rows(par, tokens, Math.max(e, k), (row, a, b) -> {
                logits.load(row * e, a, 0, e);
                score(a, e, softmax);
                topK(a, e, k, b, indices, row);
                float sum = 0;
                for (int j = 0; j < k; j++) sum += b[j];
                for (int j = 0; j < k; j++) b[j] /= sum;
                weights.store(row * k, b, 0, k);
            }));
            return p;
        }
        // Eager: scores (fp32 softmax/sigmoid), topk, sum, div: four kernels, each materialising its output.
        Tensor scores = p.scratch("scores", DType.FP32, tokens, e), vals = p.scratch("topk_values", DType.FP32, tokens, k);
        Tensor sums = p.scratch("topk_sum", DType.FP32, tokens);
        p.pass(() -> Primitives.rows(par, tokens, e, (row, a, b) -> {
            logits.load(row * e, a, 0, e);
            score(a, e, softmax);
            scores.store(row * e, a, 0, e);
        })).pass(() -> Primitives.rows(par, tokens, Math.max(e, k), (row, a, b) -> {
            scores.load(row * e, a, 0, e);
            topK(a, e, k, b, indices, row);
            vals.store(row * k, b, 0, k);
        })).pass(() -> Primitives.sumLast(par, vals, sums, k, 1f))
                .pass(() -> Primitives.rows(par, tokens, k, (row, a, b) -> {
                    vals.load(row * k, a, 0, k);
                    float total = sums.get(row);
                    for (int j = 0; j < k; j++) a[j] /= total;
                    weights.store(row * k, a, 0, k);
                }));
        return p;
    }

    private static void score(float[] a, int e, boolean softmax) {
        if (!softmax) {
            for (int j = 0; j < e; j++) a[j] = 1f / (1f + (float) Math.exp(-a[j]));
            return;
        }
        float max = Float.NEGATIVE_INFINITY, sum = 0;
        for (int j = 0; j < e; j++) max = Math.max(max, a[j]);
        for (int j = 0; j < e; j++) {
            a[j] = (float) Math.exp(a[j] - max);
            sum += a[j];
        }
        for (int j = 0; j < e; j++) a[j] /= sum;
    }

    /** Top k of scores[0..e) into values[0..k) and the index tensor's row; ties go to the lower index. */
    private static void topK(float[] scores, int e, int k, float[] values, Tensor indices, long row) {
        boolean[] taken = new boolean[e];
        for (int slot = 0; slot < k; slot++) {
            int best = -1;
            for (int j = 0; j < e; j++) if (!taken[j] && (best < 0 || scores[j] > scores[best])) best = j;
            taken[best] = true;
            indices.setDouble(row * k + slot, best);
            values[slot] = scores[best];
        }
    }
}
