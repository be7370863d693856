package gluelab.model;

import java.util.List;

/** Model specs from public configs (Hugging Face config.json of each model). */
public final class Presets {
    private Presets() {}

    public static final ModelSpec LLAMA_3_8B = new ModelSpec("llama-3-8b", null,
            "meta-llama/Meta-Llama-3-8B config.json", 4096, 32, 8, 128, 128, 14336, 0, 0, 0, null,
            1e-5, 500000, 32, List.of());

    public static final ModelSpec LLAMA_3_70B = new ModelSpec("llama-3-70b", null,
            "meta-llama/Meta-Llama-3-70B config.json", 8192, 64, 8, 128, 128, 28672, 0, 0, 0, null,
            1e-5, 500000, 80, List.of());

    /** DeepSeek-V3: MLA with a 64-wide RoPE part of each head, 256 routed experts, top-8, sigmoid scores. */
    public static final ModelSpec DEEPSEEK_V3 = new ModelSpec("deepseek-v3", null,
            "deepseek-ai/DeepSeek-V3 config.json", 7168, 128, 128, 192, 64, 18432, 2048, 256, 8, "sigmoid",
            1e-6, 10000, 61, List.of());

    /** Dims of the H200 reference measurements (docs/benchmarks.md): Llama-3-8B with 64 experts top-8. */
    public static final ModelSpec ANCHOR_H200 = new ModelSpec("anchor-h200", "llama-3-8b",
            "dims of the H200 reference measurements", 4096, 32, 8, 128, 128, 14336, 14336, 64, 8, "softmax",
            1e-5, 500000, 32, List.of());

    public static List<ModelSpec> all() { return List.of(LLAMA_3_8B, LLAMA_3_70B, DEEPSEEK_V3, ANCHOR_H200); }
}
