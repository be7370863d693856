package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.model.SpecRegistry;
import picocli.CommandLine.Option;

/**
 * What to measure, shared by bench, tune and demo (JMH's Options on the command line): model,
 * token counts, variants, passes and dtype. Each command has its own defaults ({@link Defaults});
 * an option given overrides them, checked by the plan's builder under the option's name.
 */
public final class PlanOptions {
    /** A command's defaults; a null field keeps the builder's (or, for demo's tokens, the device's). */
    public record Defaults(String tokens, String variants, String passes) {
        public static final Defaults BENCH = new Defaults("2048,4096", "eager,fused", "fwd");
        public static final Defaults TUNE = new Defaults("8192,32768", "fused", "fwd,bwd");
        /** The demo's plan ({@code BenchPlan.demo}) as it is; its token counts depend on the device (see DemoCommand). */
        public static final Defaults DEMO = new Defaults(null, null, null);
    }

    @Option(names = "--model", description = "model spec (default: " + BenchPlan.DEFAULT_MODEL + "); see 'gluelab specs'")
    String model;

    @Option(names = "--tokens", description = "token counts; 4k = 4096 (default: bench 2048,4096; tune 8192,32768; demo 2k,4k,16k,32k on a GPU, else 512,1024,2048,4096)")
    String tokens;

    @Option(names = "--variants", description = "eager, fused, region (the op as a generated expression region, where it has one) (default: bench and demo eager,fused; tune fused)")
    String variants;

    @Option(names = "--passes", description = "fwd, bwd or fwd,bwd (default: bench fwd; tune and demo fwd,bwd)")
    String passes;

    @Option(names = "--dtype", description = "activation dtype: bf16, fp16, fp32 (default: bf16)")
    String dtype;

    /** Whether --tokens was given (demo picks the device's token counts otherwise). */
    boolean tokensGiven() { return tokens != null; }

    /** A plan builder with these options over {@code defaults}, each checked as it is set. */
    BenchPlan.Builder builder(SpecRegistry specs, Defaults defaults) { return applyTo(BenchPlan.builder(specs), defaults); }

    /** {@code b} with these options over {@code defaults}. */
    BenchPlan.Builder applyTo(BenchPlan.Builder b, Defaults defaults) {
        if (model != null) b.model(model);
        String t = tokens != null ? tokens : defaults.tokens();
        if (t != null) b.tokens(t);
        String v = variants != null ? variants : defaults.variants();
        if (v != null) b.variants(v);
        String p = passes != null ? passes : defaults.passes();
        if (p != null) b.passes(p);
        if (dtype != null) b.dtype(dtype);
        return b;
    }
}
