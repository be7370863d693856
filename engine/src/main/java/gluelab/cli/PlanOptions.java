package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.bench.Tokens;
import gluelab.model.ModelSpec;
import gluelab.model.SpecRegistry;
import gluelab.ops.Pass;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * What to measure, shared by bench, tune, demo and torch (JMH's Options on the command line):
 * model, token counts, variants, passes and dtype. Each command has its own defaults
 * ({@link Defaults}); an option given overrides them, checked under the option's name. The torch
 * subcommands take the parts that apply to a user's function: {@link Shapes} (--model, --tokens;
 * both) and {@link Passes} (--passes; {@code torch time}), whose own --variants are torch's.
 */
public final class PlanOptions {
    /** A command's defaults; a null field keeps the builder's (or, for demo's tokens, the device's). */
    public record Defaults(String tokens, String variants, String passes) {
        public static final Defaults BENCH = new Defaults("2048,4096", "eager,fused", "fwd");
        public static final Defaults TUNE = new Defaults("8192,32768", "fused", "fwd,bwd");
        /** The demo's plan ({@code BenchPlan.demo}) as it is; its token counts depend on the device (see DemoCommand). */
        public static final Defaults DEMO = new Defaults(null, null, null);
        /** {@code torch time} and {@code torch compare-compile}: one token count, the forward pass. */
        public static final Defaults TORCH = new Defaults("4096", null, "fwd");
    }

    /** The model spec and token counts a command measures at. */
    public static final class Shapes {
        @Option(names = "--model", description = "model spec (default: " + BenchPlan.DEFAULT_MODEL + "); see 'gluelab specs'")
        String model;

        @Option(names = "--tokens", description = "token counts; 4k = 4096 (default: bench 2048,4096; tune 8192,32768; demo 2k,4k,16k,32k on a GPU, else 512,1024,2048,4096; torch 4096, one count)")
        String tokens;

        /** The spec named by --model, or the default one. */
        ModelSpec spec(SpecRegistry specs) { return specs.get(model != null ? model : BenchPlan.DEFAULT_MODEL); }

        /** The token counts of --tokens, or the command's default. */
        List<Long> tokens(Defaults defaults) { return Tokens.parse(tokens != null ? tokens : defaults.tokens()); }
    }

    /** The passes a command measures. */
    public static final class Passes {
        @Option(names = "--passes", description = "fwd, bwd or fwd,bwd (default: bench and torch fwd; tune and demo fwd,bwd)")
        String passes;

        /** The passes of --passes, or the command's default, each checked under the option's name. */
        List<Pass> passes(Defaults defaults) { return BenchPlan.Builder.items(passes != null ? passes : defaults.passes(), "--passes", Pass::parse); }
    }

    @Mixin Shapes shapes = new Shapes();

    @Mixin Passes passes = new Passes();

    @Option(names = "--variants", description = "eager, fused, region (the op as a generated expression region, where it has one) (default: bench and demo eager,fused; tune fused)")
    String variants;

    @Option(names = "--dtype", description = "activation dtype: bf16, fp16, fp32 (default: bf16)")
    String dtype;

    /** Whether --tokens was given (demo picks the device's token counts otherwise). */
    boolean tokensGiven() { return shapes.tokens != null; }

    /** A plan builder with these options over {@code defaults}, each checked as it is set. */
    BenchPlan.Builder builder(SpecRegistry specs, Defaults defaults) { return applyTo(BenchPlan.builder(specs), defaults); }

    /** {@code b} with these options over {@code defaults}. */
    BenchPlan.Builder applyTo(BenchPlan.Builder b, Defaults defaults) {
        if (shapes.model != null) b.model(shapes.model);
        String t = shapes.tokens != null ? shapes.tokens : defaults.tokens();
        if (t != null) b.tokens(t);
        String v = variants != null ? variants : defaults.variants();
        if (v != null) b.variants(v);
        String p = passes.passes != null ? passes.passes : defaults.passes();
        if (p != null) b.passes(p);
        if (dtype != null) b.dtype(dtype);
        return b;
    }
}
