package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.backend.cuda.KernelLaunch.Args;
import gluelab.ops.OpId;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** MoE routing (routing.cu): LANES threads a token, scores, top k and renormalised weights in one kernel. */
final class RoutingFamily implements FusedFamily {
    static final String ROUTING = "fused_routing";

    @Override public String source() { return "routing.cu"; }

    @Override public Set<OpId> ops() { return Set.of(OpId.of("moe_routing")); }

    @Override public List<String> kernels() { return List.of(ROUTING); }

    @Override public List<KernelConfig> configs(OpInstance in) {
        return routing((int) in.shape().dim("E"), (int) in.shape().dim("K"), in.shape().dtype().bytes());
    }

    @Override public List<String> choices(OpInstance in) {
        return List.of("-DCFG_K=" + in.shape().dim("K"), "-DCFG_SOFTMAX=" + (in.shape().text("score").equals("softmax") ? 1 : 0));
    }

    @Override public void launch(FusedLaunch l) {
        long tokens = l.in().shape().tokens(), e = l.in().shape().dim("E");
        long tokensPerBlock = l.threads() / l.config().get("lanes");
        int grid = (int) Math.min((tokens + tokensPerBlock - 1) / tokensPerBlock, l.wave());
        l.add(new Args().ptr("logits", l.t("logits")).ptr("weights", l.t("weights")).ptr("indices", l.t("indices")).i64("tokens", tokens).i32("e", (int) e), grid);
    }

    private static List<KernelConfig> routing(int e, int k, int es) {
        List<KernelConfig> out = new ArrayList<>();
        if (k > 32) return out;
        for (int lanes : new int[]{8, 16, 32, 4}) {
            if (e % lanes != 0) continue;
            int epl = e / lanes;
            if (epl > 32 || epl < k / lanes || (epl * es) % 2 != 0 || Integer.bitCount(epl) != 1) continue;
            for (int threads : new int[]{128, 256, 64}) out.add(FusedKernels.config(ROUTING, "threads", threads, "lanes", lanes, "epl", epl));
        }
        return out;
    }

}
