package gluelab.workflow.stack;

import gluelab.model.SpecRegistry;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.tensor.DType;

import java.util.List;

/** A small stack of two changes with the H200 reference figures' shapes, shared by the stack and write-up tests. */
public final class StackSamples {
    private StackSamples() {}

    public static final Conditions CONDITIONS = new Conditions("NVIDIA H200", "dsv3-ours", DType.BF16, List.of(Pass.FORWARD, Pass.BACKWARD),
            "cold samples", 3);

    public static SpecRegistry specs() {
        SpecRegistry r = SpecRegistry.presets();
        r.define("{\"name\": \"dsv3-ours\", \"extends\": \"deepseek-v3\", \"regions\": [\"q_norm_rope\"]}");
        r.define("{\"name\": \"kimi-k2\", \"extends\": \"dsv3-ours\", \"experts\": 384}");
        return r;
    }

    public static Change qNormRope() {
        return Change.builder("q-norm-rope", "Fuse q norm and RoPE into one region")
                .kind(FixKind.RESIZE_REGION).variant("region q_norm_rope (norm + RoPE), fused").region("q_norm_rope")
                .delta(4096, Replay.DIRECT, 410.2, 301.7).delta(16384, Replay.DIRECT, 1497, 1044)
                .delta(16384, Replay.GRAPH, 1402, 1021).layerShare(0.06)
                .correctness("eager bf16", 2.1e-3, 1, true).correctness("fp64 reference", 1.4e-3, 1, true)
                .graphs(4, 8).commit("a1b2c3d").config("local_compile_regions += q_norm_rope in dsv3-ours")
                .scope(Scope.of(specs(), "q_norm_rope"))
                .problem("The q norm and the RoPE run as two compiled regions.",
                        "The norm writes q to HBM and RoPE reads it back.",
                        "Each region launches its own kernels in forward and backward.")
                .solution("One region q_norm_rope holds the norm and RoPE.",
                        "q stays in registers between the norm and the rotation.",
                        "The backward is generated for the one region.")
                .unchanged("the model code, the numerics and the other regions")
                .code("torchtitan/models/deepseek_v3/model.py", "Attention.forward", "q norm and RoPE called inside region q_norm_rope")
                .diagram("""
                        before: x -> [rmsnorm] -> q (HBM) -> [rope] -> q_rot
                        after:  x -> [rmsnorm + rope] -> q_rot""")
                .rejected("a global cat-lowering option", "1.31x slower (1044 vs 1368 us at 16k)")
                .notTested("the 2k token count")
                .testPlan("confirm in 3 fresh processes, direct and graph replay (step 07)", "correctness vs eager bf16, fp32 and fp64 with grads")
                .build();
    }

    public static Change routerGlue() {
        return Change.builder("router-glue", "Compile the router glue as one region")
                .kind(FixKind.ENABLE_REGION).variant("region router_glue, fused").region("router_glue")
                .delta(16384, Replay.DIRECT, 356.7, 335.9).layerShare(0.02)
                .correctness("eager bf16", 0, 0, true)
                .graphs(7, 8).commit("d4e5f6a")
                .scope(Scope.specs(List.of("dsv3-ours")))
                .problem("Routing runs softmax, top-k and a gather as separate kernels.",
                        "Each of the three launches costs host time.",
                        "The gather runs eager outside any region.")
                .solution("The router glue runs in one compiled region.",
                        "The three kernels become one launch.",
                        "Top-k keeps its eager kernel.")
                .unchanged("the routing decisions and the expert GEMMs")
                .code("torchtitan/models/moe.py", "TokenChoiceTopKRouter.forward", "compiled as region router_glue")
                .testPlan("correctness vs eager bf16")
                .build();
    }

    public static ChangeStack stack() {
        return ChangeStack.empty(CONDITIONS).with(routerGlue()).with(qNormRope())
                .withRejected(new Rejected("per-site RMSNorm regions", "host time 330 vs 141 us per norm at 4k tokens"))
                .withNotTested("32k tokens");
    }
}
