package gluelab.bench;

import gluelab.device.Device;
import gluelab.model.ModelSpec;
import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * What to measure, typed and validated (JMH's Options): ops x token counts x passes, each with
 * the listed variants screened together. Passes an op does not have are skipped; a plan that
 * selects nothing is refused, saying why. {@code checkTokens} is the (small) size at which
 * correctness is checked against fp64; 0 turns checks off. The CLI's bench and demo, the
 * {@code %bench} magic and the notebook facade all build plans through {@link Builder}, so the
 * defaults below exist once. {@code placements} is how many buffer placements a small group's
 * direct rows rotate through ({@link Placements}); {@link #DEVICE_PLACEMENTS} takes the device's
 * own count (8 on CUDA, 1 on the CPU), 1 turns rotation off. {@code tune} says whether the
 * runner ({@link BenchSession}) tunes the plan's fused kernels and regions first where the device
 * has a tuner (cached picks cost nothing); it is no part of what a record says was asked.
 */
public record BenchPlan(ModelSpec spec, List<GlueOp> ops, List<Long> tokens, List<Variant> variants, List<Pass> passes,
                        DType dtype, TimingConfig timing, long checkTokens, int placements, boolean tune) {
    /** Placements as the device says ({@code Capabilities.placements()}). */
    public static final int DEVICE_PLACEMENTS = 0;

    /** A plan with the device's placements that does not tune. */
    public BenchPlan(ModelSpec spec, List<GlueOp> ops, List<Long> tokens, List<Variant> variants, List<Pass> passes, DType dtype,
                     TimingConfig timing, long checkTokens) {
        this(spec, ops, tokens, variants, passes, dtype, timing, checkTokens, DEVICE_PLACEMENTS, false);
    }

    public BenchPlan {
        ops = List.copyOf(ops);
        tokens = List.copyOf(tokens);
        variants = List.copyOf(variants);
        passes = List.copyOf(passes);
        if (ops.isEmpty()) throw new IllegalArgumentException("no ops to measure");
        if (tokens.isEmpty()) throw new IllegalArgumentException("no token counts to measure");
        if (variants.isEmpty()) throw new IllegalArgumentException("no variants to measure");
        if (passes.isEmpty()) throw new IllegalArgumentException("no passes to measure");
        for (Variant v : variants) {
            if (!v.onDevices()) throw new IllegalArgumentException("variant " + v.id() + " is timed by the torch side (bench --with torch), not on a device; devices run " + Variant.ON_DEVICES.stream().map(Variant::id).toList());
        }
        Tokens.checkAll(tokens);
        if (!dtype.isFloating()) throw new IllegalArgumentException("activation dtype must be floating, got " + dtype.id());
        if (checkTokens < 0) throw new IllegalArgumentException("check size must be >= 0 tokens (0 skips checks), got " + checkTokens);
        if (checkTokens > 0) Tokens.check(checkTokens, "--check " + checkTokens);
        if (placements != DEVICE_PLACEMENTS) placementsOption(placements);
        if (placements > 1 && timing.mode() == Mode.HOT) {
            throw new IllegalArgumentException("--placements " + placements + " needs cold samples (--mode cold): a hot sample times launches on the data"
                    + " the previous launch left in cache, which rotating placements would evict");
        }
        boolean any = false;
        for (GlueOp op : ops) for (Pass p : passes) any |= op.supports(p);
        if (!any) {
            List<String> has = new ArrayList<>();
            for (GlueOp op : ops) has.add(op.name() + " has " + java.util.Arrays.stream(Pass.values()).filter(op::supports).map(Pass::id).toList());
            throw new IllegalArgumentException("nothing to measure: passes " + passes.stream().map(Pass::id).toList()
                    + " select no rows (" + String.join(", ", has) + ")");
        }
    }

    /** The plan as a record's parameters (what was asked), in a fixed order. */
    public java.util.Map<String, String> parameters() {
        java.util.Map<String, String> params = new java.util.LinkedHashMap<>();
        params.put("model", spec.name());
        params.put("ops", String.join(",", ops.stream().map(GlueOp::name).toList()));
        params.put("tokens", String.join(",", tokens.stream().map(String::valueOf).toList()));
        params.put("variants", String.join(",", variants.stream().map(Variant::id).toList()));
        params.put("passes", String.join(",", passes.stream().map(Pass::id).toList()));
        params.put("dtype", dtype.id());
        params.put("mode", timing.mode().id());
        params.put("warmupSeconds", Double.toString(timing.warmupSeconds()));
        params.put("warmupMaxSeconds", Double.toString(gluelab.timing.WarmupRule.of(timing).maxSeconds()));
        params.put("coldSampleSeconds", Double.toString(timing.coldSampleSeconds()));
        params.put("minSamples", Integer.toString(timing.stop().minSamples()));
        params.put("minSeconds", Double.toString(timing.stop().minSeconds()));
        params.put("maxNoise", Double.toString(timing.stop().maxNoise()));
        params.put("timeoutSeconds", Double.toString(timing.stop().timeoutSeconds()));
        params.put("checkTokens", Long.toString(checkTokens));
        params.put("placements", placements == DEVICE_PLACEMENTS ? "device" : Integer.toString(placements));
        return params;
    }

    /**
     * The parameters of this plan as run on {@code device}: the device's id, and the placements
     * asked of it as a number (a group may have had fewer; each row's measurement says how many).
     */
    public java.util.Map<String, String> parameters(Device device) {
        java.util.Map<String, String> params = parameters();
        params.put("placements", Integer.toString(placements(device)));
        params.put("warmupMaxSeconds", Double.toString(gluelab.timing.WarmupRule.of(timing, device.capabilities().jitCompiled()).maxSeconds()));
        params.put("placementMaxBytes", Long.toString(Placements.MAX_BYTES));
        params.put("device", device.id());
        return params;
    }

    /**
     * The placements this plan asks of {@code device}: its own count unless the plan names one (one
     * for hot samples, which time data left in cache by the launch before). A group may still get
     * fewer (its size, the free memory); each row's measurement records how many it had.
     */
    public int placements(Device device) {
        if (placements != DEVICE_PLACEMENTS) return placements;
        return timing.mode() == Mode.HOT ? 1 : device.capabilities().placements();
    }

    /** {@code n} as a {@code --placements} value: fails, naming the option, unless it is in 1..{@code Capabilities.MAX_PLACEMENTS}. */
    public static int placementsOption(int n) {
        int max = gluelab.device.Capabilities.MAX_PLACEMENTS;
        if (n < 1 || n > max) {
            throw new IllegalArgumentException("--placements must be 1.." + max + " buffer placements (1 = one placement, no rotation), got " + n);
        }
        return n;
    }

    /** The model a plan measures unless told otherwise. */
    public static final String DEFAULT_MODEL = "llama-3-8b";
    /** Tokens of the correctness check against fp64. */
    public static final long DEFAULT_CHECK_TOKENS = 16;

    /** A builder with the defaults: the default model, 2048 tokens, eager and fused, fwd, bf16, {@link TimingConfig#defaults()}. */
    public static Builder builder(SpecRegistry specs) { return new Builder(specs); }

    /** The demo's plan: the whole catalogue, fwd and bwd, eager and fused, bf16, screening timing; set its token counts. */
    public static Builder demo(SpecRegistry specs) {
        return builder(specs).ops(Catalogue.names()).passes(List.of(Pass.FORWARD, Pass.BACKWARD)).variants(List.of(Variant.EAGER, Variant.FUSED))
                .timing(TimingConfig.quick()).check(DEFAULT_CHECK_TOKENS);
    }

    /**
     * This plan with stop-rule overrides (the demo's {@code --min-time}, {@code --timeout},
     * {@code --max-noise}); any may be null (keep), each checked by option name as the builder does.
     */
    public BenchPlan withStop(Double timeoutSeconds, Double minSeconds, Double maxNoisePercent) {
        return new BenchPlan(spec, ops, tokens, variants, passes, dtype,
                timing.withStop(Builder.overridden(timing.stop(), timeoutSeconds, minSeconds, maxNoisePercent)), checkTokens, placements, tune);
    }

    /** This plan with {@code n} buffer placements (the {@code --placements} option; checked by that name). */
    public BenchPlan withPlacements(int n) {
        return new BenchPlan(spec, ops, tokens, variants, passes, dtype, timing, checkTokens, placementsOption(n), tune);
    }

    /**
     * Builds a plan from what people type (CLI options, magics, notebook calls); each setter
     * validates its input at once and names it in the error, so a bad option fails before any work.
     */
    public static final class Builder {
        private final SpecRegistry specs;
        private ModelSpec spec;
        private List<GlueOp> ops = List.of();
        private List<Long> tokens = List.of(2048L);
        private List<Variant> variants = List.of(Variant.EAGER, Variant.FUSED);
        private List<Pass> passes = List.of(Pass.FORWARD);
        private DType dtype = DType.BF16;
        private TimingConfig timing = TimingConfig.defaults();
        private long checkTokens = DEFAULT_CHECK_TOKENS;
        private int placements = DEVICE_PLACEMENTS;
        private boolean tune;

        private Builder(SpecRegistry specs) {
            this.specs = specs;
            this.spec = specs.get(DEFAULT_MODEL);
        }

        public Builder ops(List<String> names) {
            if (names == null || names.isEmpty()) throw new IllegalArgumentException("name at least one op; known: " + Catalogue.names());
            ops = names.stream().map(Catalogue::parse).toList();
            // A repeated op would be measured twice and its rows would collide in the record.
            for (int i = 0; i < ops.size(); i++) {
                if (ops.indexOf(ops.get(i)) != i) throw new IllegalArgumentException("op '" + names.get(i) + "' is given twice; name each op once");
            }
            return this;
        }

        public Builder model(String name) { spec = specs.get(name); return this; }

        public Builder tokens(String list) { tokens = Tokens.parse(list); return this; }

        public Builder tokens(List<Long> list) {
            if (list.isEmpty()) throw new IllegalArgumentException("no token counts to measure");
            tokens = List.copyOf(Tokens.checkAll(list));
            return this;
        }

        public Builder variants(String list) { variants = items(list, "--variants", Variant::parse); return this; }

        public Builder variants(List<Variant> list) { variants = List.copyOf(list); return this; }

        public Builder passes(String list) { passes = items(list, "--passes", Pass::parse); return this; }

        public Builder passes(List<Pass> list) { passes = List.copyOf(list); return this; }

        public Builder dtype(String id) { dtype = DType.parse(id); return this; }

        public Builder mode(String id) { timing = timing.withMode(Mode.parse(id)); return this; }

        public Builder timing(TimingConfig t) { timing = t; return this; }

        /** Stop-rule overrides; any may be null (keep the current value). Each is checked here, by name. */
        public Builder stop(Double timeoutSeconds, Double minSeconds, Double maxNoisePercent) {
            timing = timing.withStop(overridden(timing.stop(), timeoutSeconds, minSeconds, maxNoisePercent));
            return this;
        }

        /** {@code s} with the overrides that are not null, each checked by its option's name. */
        public static StopRule overridden(StopRule s, Double timeoutSeconds, Double minSeconds, Double maxNoisePercent) {
            if (timeoutSeconds != null) s = s.withTimeout(option("--timeout", timeoutSeconds, false));
            if (minSeconds != null) s = s.withMinSeconds(option("--min-time", minSeconds, true));
            if (maxNoisePercent != null) {
                double pct = option("--max-noise", maxNoisePercent, false);
                if (pct >= 100) throw new IllegalArgumentException("--max-noise is a percentage under 100, got " + maxNoisePercent);
                s = s.withMaxNoise(pct / 100);
            }
            return s;
        }

        public Builder check(long tokensForCheck) {
            if (tokensForCheck < 0) throw new IllegalArgumentException("--check must be >= 0 tokens (0 skips checks), got " + tokensForCheck);
            checkTokens = tokensForCheck;
            return this;
        }

        /** Buffer placements a small group's direct rows rotate through (1 = off; the device's count unless set). */
        public Builder placements(int n) {
            placements = placementsOption(n);
            return this;
        }

        /** Whether the runner tunes first (off unless set: {@code gluelab bench} and {@code %bench} set it unless --no-tune). */
        public Builder tune(boolean t) {
            tune = t;
            return this;
        }

        public BenchPlan build() {
            if (ops.isEmpty()) throw new IllegalArgumentException("name at least one op; known: " + Catalogue.names());
            return new BenchPlan(spec, ops, tokens, variants, passes, dtype, timing, checkTokens, placements, tune);
        }

        private static double option(String name, double v, boolean zeroAllowed) {
            if (Double.isNaN(v) || Double.isInfinite(v) || v < 0 || (!zeroAllowed && v == 0)) {
                throw new IllegalArgumentException(name + " must be a finite number " + (zeroAllowed ? ">= 0" : "> 0") + ", got " + v);
            }
            return v;
        }

        /** A comma list of {@code option}, each item parsed; errors name the option and the item. */
        public static <T> List<T> items(String list, String option, java.util.function.Function<String, T> parse) {
            if (list == null || list.isBlank()) throw new IllegalArgumentException(option + " is empty");
            List<T> out = new ArrayList<>();
            for (String part : list.split(",", -1)) {
                if (part.isBlank()) throw new IllegalArgumentException(option + " '" + list + "' has an empty entry");
                try {
                    out.add(parse.apply(part));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
                }
            }
            return List.copyOf(new java.util.LinkedHashSet<>(out));
        }
    }

    /** One group measured together: its variants are interleaved. */
    public record Group(GlueOp op, OpShape shape, Pass pass) {
        public long argumentBytes() {
            long sum = 0;
            for (TensorSpec t : op.inputs(shape, pass)) sum += t.bytes();
            for (TensorSpec t : op.outputs(shape, pass)) sum += t.bytes();
            return sum;
        }
    }

    public List<Group> groups() {
        List<Group> out = new ArrayList<>();
        for (long t : tokens) {
            for (GlueOp op : ops) {
                for (Pass p : passes) {
                    if (op.supports(p)) out.add(new Group(op, op.shape(spec, t, dtype), p));
                }
            }
        }
        return out;
    }

    /**
     * Fails before anything is allocated when the device cannot run the plan: a dtype it lacks
     * (with its reason), or a group that cannot fit in its memory.
     */
    public void checkRuns(Device device) {
        var skip = device.capabilities().skip(dtype, device.id());
        if (skip.isPresent()) throw new IllegalArgumentException("cannot measure " + dtype.id() + " here: " + skip.get().reason());
        checkFits(device);
    }

    /** Fails before anything is allocated when a group cannot fit in the device's memory. */
    public void checkFits(Device device) {
        long available = device.availableMemory();
        for (Group g : groups()) {
            // Eager variants hold intermediates; allow three times the arguments for them.
            long need = g.argumentBytes() * (variants.contains(Variant.EAGER) ? 4 : 1);
            if (need > available) {
                throw new IllegalArgumentException(String.format(
                        "%s at %d tokens needs about %.1f GiB but %s has %.1f GiB available; use fewer tokens",
                        g.op().name(), g.shape().tokens(), need / 1073741824.0, device.id(), available / 1073741824.0));
            }
        }
    }
}
