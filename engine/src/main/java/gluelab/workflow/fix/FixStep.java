package gluelab.workflow.fix;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.bench.BenchSession;
import gluelab.bench.KernelBenchmark;
import gluelab.calibrate.Calibration;
import gluelab.device.*;
import gluelab.backend.cuda.UserKernel;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.expr.Glue;
import gluelab.expr.Region;
import gluelab.expr.workbench.RegionBench;
import gluelab.expr.workbench.RegionSizing;
import gluelab.expr.workbench.Rewrites;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionLaunches;
import gluelab.model.ModelSpec;
import gluelab.ops.*;
import gluelab.progress.Progress;
import gluelab.rank.Candidate;
import gluelab.rank.Ranking;
import gluelab.record.RunKind;
import gluelab.record.Environment;
import gluelab.record.ExperimentRecord;
import gluelab.record.Row;
import gluelab.tensor.DType;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimedLaunch;
import gluelab.timing.TimingConfig;
import gluelab.torch.TorchResult;
import gluelab.torch.TorchSide;
import gluelab.torch.TorchVariant;

import java.time.Instant;
import java.util.*;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Step 05: for each candidate of the ranking (an op's pass at a token count), tries fixes cheapest
 * first: the catalogue's other kernel variants, the analyst's regions and rewrites from the
 * expression API, their {@code %%cuda} kernels (on a GPU; skipped with the reason elsewhere), and
 * torch's forms through the torch bridge (skipped with the reason when torch or torch.compile is
 * not there). Then the best fix per candidate is tried together with the others before any is
 * rejected (the interaction table), and region sizing A/B/C when two regions are given.
 *
 * <pre>
 * var fix = FixStep.on(lab.device(), lab.calibration(), lab.spec(model)).candidates(ex.ranking())
 *     .region("rmsnorm", "rmsnorm region", g -> Examples.rmsnorm(g, "bf16"));
 * var result = fix.record(ex);   // result.table(), result.interactionTable()
 * </pre>
 */
public final class FixStep {
    private record Target(GlueOp op, Pass pass, long tokens, Variant baseline) {
        String label() { return op.name() + " " + pass.id() + " T=" + tokens; }
    }

    private record RegionFix(String op, String name, Function<Glue, Region> build) {}

    private record RewriteFix(String op, Function<Glue, Rewrites.Rewrite> build) {}

    private record KernelFix(String op, Pass pass, String name, Function<Device, TimedLaunch.Subject> launch) {}

    private final Device device;
    private final Calibration calibration;
    private final ModelSpec spec;
    private final List<Target> targets = new ArrayList<>();
    private final List<RegionFix> regions = new ArrayList<>();
    private final List<RewriteFix> rewrites = new ArrayList<>();
    private final List<KernelFix> kernels = new ArrayList<>();
    private Supplier<TorchSide> torch;
    private String torchMode = "default";
    private Region sizingA, sizingB;
    private DType dtype = DType.BF16;
    private TimingConfig timing = TimingConfig.defaults();
    private Long tokensOverride;
    private final List<gluelab.compilelog.GraphBudget> torchBudgets = new ArrayList<>();
    private Progress progress = Progress.NONE;
    private Ranking ranking;

    private FixStep(Device device, Calibration calibration, ModelSpec spec) {
        this.device = device;
        this.calibration = calibration;
        this.spec = spec;
    }

    public static FixStep on(Device device, Calibration calibration, ModelSpec spec) { return new FixStep(device, calibration, spec); }

    public FixStep timing(TimingConfig t) { timing = t; return this; }

    public FixStep dtype(String id) { dtype = DType.parse(id); return this; }

    public FixStep progress(Progress p) { progress = p == null ? Progress.NONE : p; return this; }

    /** Times every candidate at this token count instead of the ranking's (small sizes on a CPU). */
    public FixStep tokens(long t) {
        if (t <= 0) throw new IllegalArgumentException("tokens must be positive, got " + t);
        tokensOverride = t;
        return this;
    }

    /** The ranking's candidates above its stop rule, biggest first. */
    public FixStep candidates(Ranking ranking) {
        this.ranking = ranking;
        for (Candidate c : ranking.worthFixing()) {
            if (!c.variant().onDevices()) continue;
            candidate(c.op().name(), c.pass().id(), c.tokens(), c.variant().id());
        }
        return this;
    }

    /** One candidate: an op's pass at a token count, now run as {@code baseline} (usually eager). */
    public FixStep candidate(String op, String pass, long tokens, String baseline) {
        GlueOp o = Catalogue.parse(op);
        Pass p = Pass.parse(pass);
        if (!o.supports(p)) throw new IllegalArgumentException(op + " has no " + p.id() + " pass in the catalogue");
        Variant v = Variant.parse(baseline);
        if (!v.onDevices()) throw new IllegalArgumentException("baseline " + baseline + " does not run on gluelab's devices");
        targets.add(new Target(o, p, tokens, v));
        return this;
    }

    /** An analyst's region as a fix for {@code op} (both passes: the backward is derived). */
    public FixStep region(String op, String name, Function<Glue, Region> build) {
        Catalogue.parse(op);
        regions.add(new RegionFix(op, name, build));
        return this;
    }

    /** A rewrite (before and after) as a fix for {@code op}: the after form against the before form. */
    public FixStep rewrite(String op, Function<Glue, Rewrites.Rewrite> build) {
        Catalogue.parse(op);
        rewrites.add(new RewriteFix(op, build));
        return this;
    }

    /** An analyst's CUDA kernel (from a {@code %%cuda} cell) as a fix for {@code op}'s pass; skipped with the reason off a GPU. */
    public FixStep kernel(String op, String pass, String name, Function<Device, TimedLaunch.Subject> launch) {
        Catalogue.parse(op);
        kernels.add(new KernelFix(op, Pass.parse(pass), name, launch));
        return this;
    }

    /** torch's eager and compiled forms of each candidate through the bridge ({@code side} is started when first needed). */
    public FixStep torch(Supplier<TorchSide> side, String compileMode) {
        torch = side;
        torchMode = TorchSide.checkMode(compileMode);
        return this;
    }

    /** Region sizing: region(A) + eager B, region(A) + region(B), region(C = A then B). */
    public FixStep sizing(Region a, Region b) {
        sizingA = a;
        sizingB = b;
        return this;
    }

    private long tokens(Target t) { return tokensOverride != null ? tokensOverride : t.tokens(); }

    public FixResult run() { return run(null); }

    /** Runs, publishes the catalogue measurements as a record, writes {@code steps/05-fix/fix.json} and the devlog, and marks step 05 done. */
    public FixResult record(ExperimentFolder ex) {
        try (var running = ex.running(Step.FIX)) {
            FixResult r = run(ex);
            var file = ex.stepDir(Step.FIX).resolve("fix.json");
            r.save(file);
            for (Attempt a : r.attempts()) {
                String line = "fix " + a.op() + " " + a.pass() + " T=" + a.tokens() + " " + a.source().label() + " '" + a.name() + "': " + a.describe();
                if (a.win()) ex.devlog().measurement(line);
                else if (a.measured()) ex.devlog().deadEnd(line + "; not a win alone (see the interaction table before rejecting it)");
                else ex.devlog().note(line);
            }
            for (String n : r.notes()) {
                if (n.contains("in combination")) ex.devlog().feedback("interaction: " + n);
                else ex.devlog().measurement("interaction: " + n);
            }
            for (Attempt w : r.winners()) ex.devlog().decision("fix for " + w.op() + " " + w.pass() + ": " + w.name() + " (" + w.source().label() + "), " + w.describe());
            ex.done(Step.FIX, r.benchRecord() == null ? List.of() : List.of(r.benchRecord()), Map.of("fix", ex.dir().relativize(file).toString()), r.summary());
            return r;
        }
    }

    private FixResult run(ExperimentFolder ex) {
        if (targets.isEmpty() && ranking != null && ranking.worthFixing().isEmpty()) {
            throw new IllegalStateException("the ranking has no candidate above its stop rule (" + ranking.stopFraction() * 100
                    + "% of the layer): the stop rule is reached, nothing to fix; name one with candidate(op, pass, tokens, baseline) to try it anyway");
        }
        if (targets.isEmpty()) throw new IllegalArgumentException("no candidates: give a ranking (candidates(ex.ranking())) or candidate(op, pass, tokens, baseline)");
        Instant started = Instant.now();
        List<Attempt> attempts = new ArrayList<>();
        List<Row> benchRows = new ArrayList<>();
        Map<Target, Double> baselines = new LinkedHashMap<>();
        int done = 0, total = targets.size();
        for (Target t : targets) {
            progress.update("fix", done++, total, t.label());
            attempts.addAll(tryTarget(t, baselines, benchRows));
        }
        progress.update("fix", total, total, "interactions");
        List<InteractionRow> interactions = List.of();
        List<String> notes = new ArrayList<>();
        List<Attempt> combinable = bestCombinable(attempts);
        if (combinable.size() >= 2) {
            var outcome = interactions(combinable);
            interactions = outcome.rows();
            notes.addAll(outcome.notes());
        } else {
            notes.add("interactions: " + combinable.size() + " fix(es) that run in this process; nothing to combine");
        }
        List<RegionBench.Row> sizing = sizingA == null ? List.of() : RegionSizing.measure(device, calibration, sizingA, sizingB, timing);
        String recordId = null;
        if (ex != null && !benchRows.isEmpty()) {
            recordId = BenchSession.newId(RunKind.FIX);
            Map<String, String> params = new LinkedHashMap<>();
            params.put("step", Step.FIX.notebook());
            params.put("candidates", targets.stream().map(Target::label).toList().toString());
            params.put("device", device.id());
            ex.publish(ExperimentRecord.builder(recordId, RunKind.FIX, spec).parameters(params)
                    .environment(Environment.capture(device.facts(), calibration, started)).rows(benchRows)
                    .stopFraction(ex.hasPlan() ? ex.plan().stopFraction() : 0.01).build());
        }
        return new FixResult(FixResult.FORMAT, targets.stream().map(Target::label).toList(), attempts, interactions, notes, sizing, recordId,
                torchBudgets, device.facts().name());
    }

    private List<Attempt> tryTarget(Target t, Map<Target, Double> baselines, List<Row> benchRows) {
        List<Attempt> out = new ArrayList<>();
        long tokens = tokens(t);
        String op = t.op().name(), pass = t.pass().id();
        // 1. The catalogue's other variants, timed interleaved with the baseline.
        List<Variant> variants = new ArrayList<>(List.of(t.baseline()));
        for (Variant v : Variant.ON_DEVICES) if (v != t.baseline()) variants.add(v);
        BenchPlan plan = new BenchPlan(spec, List.of(t.op()), List.of(tokens), variants, List.of(t.pass()), dtype, timing, 0);
        BenchResult bench = BenchSession.on(device, calibration).run(plan);
        benchRows.addAll(bench.rows());
        Row base = bench.rows().stream().filter(r -> r.variant() == t.baseline() && r.replay() == Replay.DIRECT).findFirst().orElseThrow();
        double baseUs = base.measuredUs();
        baselines.put(t, baseUs);
        for (Row r : bench.rows()) {
            if (r.variant() == t.baseline() || r.replay() != Replay.DIRECT) continue;
            out.add(Attempt.measured(op, pass, tokens, FixSource.CATALOGUE_VARIANT, r.variant().id(), baseUs, r.measuredUs(), r.idealUs(), "",
                    base.measurement().noisy(), r.measurement().noisy()));
        }
        // 2. Regions and rewrites from the expression API.
        for (RegionFix f : regions) {
            if (!f.op().equals(op)) continue;
            try {
                Region r = f.build().apply(Glue.of(spec, tokens));
                Region timed = t.pass() == Pass.BACKWARD ? r.backward() : r;
                RegionBench.Row row = RegionBench.bench(device, calibration, timed, t.pass(), Lowering.FUSED, timing);
                out.add(Attempt.measured(op, pass, tokens, FixSource.REGION, f.name(), baseUs, row.measuredUs(), row.idealUs(), "",
                        base.measurement().noisy(), Optional.of(row.noisy())));
            } catch (RuntimeException e) {
                out.add(Attempt.failed(op, pass, tokens, FixSource.REGION, f.name(), String.valueOf(e.getMessage())));
            }
        }
        for (RewriteFix f : rewrites) {
            if (!f.op().equals(op)) continue;
            String name = "rewrite";
            try {
                Rewrites.Rewrite rw = f.build().apply(Glue.of(spec, tokens));
                name = rw.name();
                Region before = t.pass() == Pass.BACKWARD ? rw.before().backward() : rw.before();
                Region after = t.pass() == Pass.BACKWARD ? rw.after().backward() : rw.after();
                RegionBench.Row b = RegionBench.bench(device, calibration, before, t.pass(), Lowering.FUSED, timing);
                RegionBench.Row a = RegionBench.bench(device, calibration, after, t.pass(), Lowering.FUSED, timing);
                out.add(Attempt.measured(op, pass, tokens, FixSource.REWRITE, name, b.measuredUs(), a.measuredUs(), a.idealUs(),
                        "against its before form, fused", Optional.of(b.noisy()), Optional.of(a.noisy())));
            } catch (RuntimeException e) {
                out.add(Attempt.failed(op, pass, tokens, FixSource.REWRITE, name, String.valueOf(e.getMessage())));
            }
        }
        // 3. The analyst's CUDA kernels: a GPU only.
        for (KernelFix f : kernels) {
            if (!f.op().equals(op) || f.pass() != t.pass()) continue;
            if (!UserKernel.runsOn(device)) {
                out.add(Attempt.skipped(op, pass, tokens, FixSource.CUDA_KERNEL, f.name(), "%%cuda kernels need a GPU; " + device.id() + " is not one"));
                continue;
            }
            try (TimedLaunch.Subject s = f.launch().apply(device)) {
                KernelBenchmark.Result r = KernelBenchmark.run(device, calibration, s, timing);
                out.add(Attempt.measured(op, pass, tokens, FixSource.CUDA_KERNEL, f.name(), baseUs, r.measuredUs(), r.idealUs(), "",
                        base.measurement().noisy(), r.measurement().noisy()));
            } catch (RuntimeException e) {
                out.add(Attempt.failed(op, pass, tokens, FixSource.CUDA_KERNEL, f.name(), String.valueOf(e.getMessage())));
            }
        }
        // 4. torch's forms, in the user's Python.
        if (torch != null) out.addAll(tryTorch(t, tokens, plan, bench, base));
        return out;
    }

    private List<Attempt> tryTorch(Target t, long tokens, BenchPlan plan, BenchResult own, Row base) {
        double baseUs = base.measuredUs();
        String op = t.op().name(), pass = t.pass().id();
        List<Attempt> out = new ArrayList<>();
        TorchResult r;
        try {
            r = torch.get().bench(plan, calibration, own, List.of(TorchVariant.EAGER, TorchVariant.COMPILE), torchMode, Progress.NONE).torch();
        } catch (RuntimeException e) {
            for (TorchVariant v : List.of(TorchVariant.EAGER, TorchVariant.COMPILE))
                out.add(Attempt.skipped(op, pass, tokens, FixSource.TORCH, v.id(), "torch unavailable: " + e.getMessage()));
            return out;
        }
        r.compiles().stream().map(gluelab.torch.CompileReport::budget).filter(Objects::nonNull).forEach(torchBudgets::add);
        for (Row row : r.rows()) {
            if (row.replay() != Replay.DIRECT) continue;
            out.add(Attempt.measured(op, pass, tokens, FixSource.TORCH, row.variant().id(), baseUs, row.measuredUs(), row.idealUs(),
                    "in torch " + r.versions().torch(), base.measurement().noisy(), row.measurement().noisy()));
        }
        r.skipped().forEach(s -> out.add(Attempt.skipped(op, pass, tokens, FixSource.TORCH, s.variant(), s.reason())));
        return out;
    }

    /**
     * Per candidate, the fastest measured fix that runs in this process's stream, winner or not:
     * catalogue variants and regions (torch forms run in Python, %%cuda kernels in the kernel worker,
     * and a rewrite replaces an expression form, not the op).
     */
    private static List<Attempt> bestCombinable(List<Attempt> attempts) {
        Map<String, Attempt> best = new LinkedHashMap<>();
        for (Attempt a : attempts) {
            if (!a.measured() || (a.source() != FixSource.CATALOGUE_VARIANT && a.source() != FixSource.REGION)) continue;
            String key = a.op() + " " + a.pass() + " " + a.tokens();
            Attempt b = best.get(key);
            if (b == null || a.variantUs() < b.variantUs()) best.put(key, a);
        }
        return List.copyOf(best.values());
    }

    private Interactions.Outcome interactions(List<Attempt> fixes) {
        List<AutoCloseable> held = new ArrayList<>();
        try {
            List<Interactions.Slot> slots = new ArrayList<>();
            for (Attempt a : fixes) {
                GlueOp op = Catalogue.parse(a.op());
                Pass pass = Pass.parse(a.pass());
                Target t = targets.stream().filter(x -> x.op() == op && x.pass() == pass && tokens(x) == a.tokens()).findFirst().orElseThrow();
                OpShape shape = op.shape(spec, a.tokens(), dtype);
                Map<String, Buffer> args = new LinkedHashMap<>();
                try {
                    OpBuffers.allocate(device, op, shape, pass, 42, args);
                } finally {
                    args.values().forEach(b -> held.add(b::close));
                }
                Launch baseline = device.prepare(new OpInstance(op, shape, pass, t.baseline()), args);
                held.add(baseline);
                Launch fixed = switch (a.source()) {
                    case CATALOGUE_VARIANT -> device.prepare(new OpInstance(op, shape, pass, Variant.parse(a.name())), args);
                    case REGION -> regionLaunch(a, pass, held);
                    default -> throw new IllegalStateException(a.source() + " is not combined");
                };
                held.add(fixed);
                slots.add(new Interactions.Slot(a.op() + " " + a.pass() + " " + a.name(), baseline, fixed));
            }
            return Interactions.measure(device, slots, timing);
        } finally {
            Collections.reverse(held);
            for (AutoCloseable c : held) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // Closing device memory does not fail in a way the caller could act on.
                }
            }
        }
    }

    private Launch regionLaunch(Attempt a, Pass pass, List<AutoCloseable> held) {
        RegionFix f = regions.stream().filter(r -> r.name().equals(a.name()) && r.op().equals(a.op())).findFirst().orElseThrow();
        Region r = f.build().apply(Glue.of(spec, a.tokens()));
        if (pass == Pass.BACKWARD) r = r.backward();
        Map<String, Buffer> buffers = new LinkedHashMap<>();
        long seed = 7;
        for (TensorSpec s : RegionLaunches.tensors(r)) {
            Buffer b = device.allocate(s);
            held.add(b::close);
            buffers.put(s.name(), b);
            try (Tensor t = Tensor.allocate(s)) {
                Fill.uniform(t, seed++, -1, 1);
                device.upload(t, b);
            }
        }
        return RegionLaunches.prepare(device, r, Lowering.FUSED, buffers, Map.of());
    }
}
