package gluelab.backend.cpu;

import gluelab.ops.OpId;
import java.util.List;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.tensor.Tensor;

import java.util.Map;

public final class CpuRouting implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(OpId.of("moe_routing")); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        var s = in.shape();
        int e = (int) s.dim("E"), k = (int) s.dim("K");
        boolean softmax = s.text("score").equals("softmax");
        Tensor logits = t.get("logits"), weights = t.get("weights"), indices = t.get("indices");
        return new Program().pass(() -> Primitives.rows(par, s.tokens(), Math.max(e, k), (row, a, b) -> {
            logits.load(row * e, a, 0, e);
            Primitives.score(a, e, softmax);
            Primitives.topKRow(a, e, k, b, indices, row);
            float sum = 0;
            for (int j = 0; j < k; j++) sum += b[j];
            for (int j = 0; j < k; j++) b[j] /= sum;
            weights.store(row * k, b, 0, k);
        }));
    }
}
