package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.model.ModelSpec;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.torch.TorchException;
import gluelab.ops.Replay;
import gluelab.units.Numbers;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;

import java.nio.file.Path;
import java.util.*;

/**
 * Step 05 for the analyst's model: each {@link ModelFix} timed fwd+bwd against the model as written,
 * in the same harness process and interleaved with it, cheapest first, at every planned token count;
 * with two or more fixes the interaction table (each alone, all but one with three or more, all
 * together), and region sizing A / B / C when {@link Sizing} names the regions. Kept as
 * {@code steps/05-fix/model-fix.json}, saved after each token count ({@code model-fix.partial.json} until the step finishes) so a crash
 * keeps what was measured and a stopped rerun leaves the earlier finished record as it was;
 * the quiet check at its start and end ({@link StepQuiet}), a busy machine one of the result's notes.
 */
public final class ModelFixStep {
    public static final String FILE = "model-fix";
    static final String TOGETHER = "all-together", ALL_BUT = "all-but-", SIZING = "sizing-";
    private static final Set<String> RESERVED = Set.of(ModelVariantTiming.BASELINE, TOGETHER);

    private ModelFixStep() {}

    /**
     * Region sizing: {@code a} compiled alone ({@code b} eager), {@code a} and {@code b} as two regions,
     * and {@code c}, a function that runs both, as one region (docs/methodology.md, "resize one").
     */
    public record Sizing(String a, String b, String c) {
        public Sizing {
            for (String r : new String[]{a, b, c}) new ModelFix.RegionSet(List.of(r));
        }

        /** {@code A,B,C} as the command line gives them. */
        public static Sizing parse(String text) {
            String[] p = text.split(",");
            if (p.length != 3) throw new IllegalArgumentException("--sizing '" + text + "': expected A,B,C (three functions of the model file: A, B, and C around both)");
            return new Sizing(p[0].strip(), p[1].strip(), p[2].strip());
        }

        List<ModelFix> variants() {
            return List.of(new ModelFix(SIZING + "A", List.of(new ModelFix.RegionSet(List.of(a)))),
                    new ModelFix(SIZING + "AB", List.of(new ModelFix.RegionSet(List.of(a, b)))),
                    new ModelFix(SIZING + "C", List.of(new ModelFix.RegionSet(List.of(c)))));
        }
    }

    /** What the step times for {@code fixes}: each alone (cheapest first), the combinations, the sizing arms. */
    static List<ModelFix> variants(List<ModelFix> fixes, Sizing sizing) {
        List<ModelFix> out = new ArrayList<>(fixes);
        int n = fixes.size();
        if (n >= 3) for (ModelFix f : fixes) out.add(ModelFix.together(ALL_BUT + f.name(), fixes.stream().filter(x -> x != f).toList()));
        if (n >= 2) out.add(ModelFix.together(TOGETHER, fixes));
        if (sizing != null) out.addAll(sizing.variants());
        return out;
    }

    public static ModelFixResult run(ExperimentFolder ex, Device device, TorchBridge bridge, ModelSpec spec, List<ModelFix> fixes, Sizing sizing, TimingConfig timing,
                                     long flushBytes, Progress progress) {
        return run(ex, device, bridge, spec, fixes, sizing, timing, flushBytes, StepLimits.forMeasurement(timing.stop().timeoutSeconds()), progress);
    }

    /** As above, the model's code under {@code limits}. */
    public static ModelFixResult run(ExperimentFolder ex, Device device, TorchBridge bridge, ModelSpec spec, List<ModelFix> fixes, Sizing sizing, TimingConfig timing,
                                     long flushBytes, StepLimits limits, Progress progress) {
        try (var running = ex.running(Step.FIX)) {
            ExperimentPlan plan = ex.plan();
            ModelSubject s = plan.modelSubject();
            if (fixes.isEmpty() && sizing == null) throw new IllegalArgumentException("no fixes to try: give --fix NAME=KIND:... (docs/user-guide.md, \"Fixes of your model\")");
            Set<String> names = new HashSet<>();
            for (ModelFix f : fixes) {
                if (RESERVED.contains(f.name()) || f.name().startsWith(ALL_BUT) || f.name().startsWith(SIZING))
                    throw new IllegalArgumentException("--fix " + f.name() + ": the name is the step's own (baseline, all-together, all-but-*, sizing-*); choose another");
                if (!names.add(f.name())) throw new IllegalArgumentException("--fix " + f.name() + ": given twice");
            }
            List<ModelFix> ordered = ModelFix.cheapestFirst(fixes);
            List<ModelFix> variants = variants(ordered, sizing);
            Map<Long, List<TensorSpec>> inputsAt = ModelBaselinesStep.inputsAt(plan, spec);
            // Saved after each token count to the part-way record, beside an earlier finished run's, which stays as it is until this run finishes.
            PartialStep<ModelFixResult> partial = partial(ex);
            Path file = partial.file();
            List<ModelVariantTiming> timings = new ArrayList<>();
            Map<Long, String> failed = new LinkedHashMap<>();
            ModelFixResult result = null;
            StepQuiet quiet = StepQuiet.start(device);
            for (var at : inputsAt.entrySet()) {
                long t = at.getKey();
                if (!failed.isEmpty() && !bridge.alive()) {
                    failed.put(t, "not timed: the torch harness ended at an earlier token count");
                } else {
                    try {
                        timings.add(ModelVariantTiming.run(bridge, ModelPlan.entry(ex), Map.of(t, at.getValue()), variants, false, timing, flushBytes, limits, true, progress));
                    } catch (TorchException e) {
                        // A reply that fails before any row is bad input in a fix (checked before anything is timed): the command's error.
                        if (timings.isEmpty() && e.kind() == TorchException.Kind.FAILED) throw new IllegalArgumentException(e.getMessage(), e);
                        failed.put(t, e.getMessage().lines().findFirst().orElse("the torch harness failed"));
                    }
                }
                result = assemble(ModelPlan.entry(s).shortName(), ordered, sizing, inputsAt.keySet(), timings, failed);
                partial.save(result);
            }
            quiet = quiet.ended(device);
            if (!quiet.quiet()) result = result.withNote(quiet.mark() + ": every row's numbers are weaker for it");
            partial.finish(result);
            for (ModelFixResult.FixRow r : result.rows()) {
                ex.devlog().measurement("fix " + r.fix() + " (" + result.kinds(r) + ") @ " + Numbers.count(r.tokens(), "token") + " fwd+bwd: " + r.describe());
            }
            result.notes().forEach(n -> ex.devlog().decision("fixes: " + n));
            Map<String, String> files = quiet.record(ex, Step.FIX, Map.of(FILE, ex.dir().relativize(file).toString()));
            if (nothingMeasured(result)) ex.failed(Step.FIX, files, "nothing measured: " + result.summary() + quiet.suffix());
            else ex.done(Step.FIX, List.of(), files, result.summary() + quiet.suffix());
            return result;
        }
    }

    /** Every fix row failed (sizing arms included): the step kept the reasons but measured nothing. */
    public static boolean nothingMeasured(ModelFixResult r) {
        return r.rows().stream().noneMatch(ModelFixResult.FixRow::measured) && r.sizing().stream().allMatch(x -> Double.isNaN(x.us()));
    }

    /** The result from the timings so far; token counts in {@code failed} (or not yet timed) have FAILED rows with the reason. */
    static ModelFixResult assemble(String model, List<ModelFix> fixes, Sizing sizing, Collection<Long> tokens, List<ModelVariantTiming> timings,
                                   Map<Long, String> failed) {
        List<ModelFixResult.FixRow> rows = new ArrayList<>();
        List<ModelFixResult.Combination> combos = new ArrayList<>();
        List<ModelFixResult.SizingRow> sizingRows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (long t : tokens) {
            Optional<ModelVariantTiming> timing = timings.stream().filter(x -> x.rows().stream().anyMatch(r -> r.tokens() == t)).findFirst();
            if (timing.isEmpty() && !failed.containsKey(t)) continue;  // not reached yet
            Optional<ModelVariantTiming.Row> base = timing.flatMap(x -> x.row(ModelVariantTiming.BASELINE, t, Replay.DIRECT));
            String baseFailure = failed.containsKey(t) ? failed.get(t) : base.filter(ModelVariantTiming.Row::failed)
                    .map(b -> "the model as written failed: " + b.error()).orElse(null);
            for (ModelFix f : fixes) {
                Optional<ModelVariantTiming.Row> r = timing.flatMap(x -> x.row(f.name(), t, Replay.DIRECT));
                if (baseFailure != null || r.isEmpty() || r.get().failed()) {
                    String why = baseFailure != null ? baseFailure : r.map(ModelVariantTiming.Row::error).orElse("no row returned");
                    rows.add(new ModelFixResult.FixRow(f.name(), f.kind(), t, ModelFixResult.Status.FAILED, Double.NaN, Double.NaN,
                            r.map(x -> x.compile().seconds()).orElse(0.0), "", why));
                } else {
                    rows.add(new ModelFixResult.FixRow(f.name(), f.kind(), t, ModelFixResult.Status.MEASURED, base.get().us(), r.get().us(),
                            r.get().compile().seconds(), ModelFixResult.caveat(r.get(), base.get()), ""));
                }
            }
            if (fixes.size() >= 2) {
                List<String> fixNames = fixes.stream().map(ModelFix::name).toList();
                combos.add(combination(t, "baseline (no fix)", List.of(), ModelVariantTiming.BASELINE, timing, base, baseFailure));
                for (String f : fixNames) combos.add(combination(t, "alone: " + f, List.of(f), f, timing, base, baseFailure));
                if (fixes.size() >= 3) {
                    for (String f : fixNames) combos.add(combination(t, "all but: " + f, fixNames.stream().filter(x -> !x.equals(f)).toList(), ALL_BUT + f, timing, base, baseFailure));
                }
                combos.add(combination(t, "all together", fixNames, TOGETHER, timing, base, baseFailure));
                notes.addAll(interactionNotes(t, combos.subList(combos.size() - (fixes.size() >= 3 ? 2 * fixNames.size() + 2 : fixNames.size() + 2), combos.size()), fixNames,
                        base.filter(b -> !b.failed()).map(ModelVariantTiming.Row::us).orElse(Double.NaN)));
            }
            if (sizing != null) {
                for (ModelFix v : sizing.variants()) {
                    ModelFixResult.Combination c = combination(t, v.name(), List.of(), v.name(), timing, base, baseFailure);
                    String arm = v.name().substring(SIZING.length());
                    sizingRows.add(new ModelFixResult.SizingRow(t, arm.equals("AB") ? "A+B" : arm, ((ModelFix.RegionSet) v.parts().getFirst()).regions(), c.us(), c.deltaUs(),
                            c.caveat(), c.reason()));
                }
            }
        }
        return new ModelFixResult(ModelFixResult.FORMAT, model, fixes, rows, combos, sizingRows, List.of(), notes, timings);
    }

    private static ModelFixResult.Combination combination(long t, String label, List<String> fixes, String variant, Optional<ModelVariantTiming> timing,
                                                          Optional<ModelVariantTiming.Row> base, String baseFailure) {
        Optional<ModelVariantTiming.Row> r = timing.flatMap(x -> x.row(variant, t, Replay.DIRECT));
        if (baseFailure != null) return new ModelFixResult.Combination(t, label, fixes, r.filter(x -> !x.failed()).map(ModelVariantTiming.Row::us).orElse(Double.NaN),
                Double.NaN, "", baseFailure);
        if (r.isEmpty() || r.get().failed()) return new ModelFixResult.Combination(t, label, fixes, Double.NaN, Double.NaN, "", r.map(ModelVariantTiming.Row::error).orElse("no row returned"));
        return new ModelFixResult.Combination(t, label, fixes, r.get().us(), r.get().us() - base.get().us(),
                variant.equals(ModelVariantTiming.BASELINE) ? base.get().run().noisy().map(n -> "noisy: " + n).orElse("") : ModelFixResult.caveat(r.get(), base.get()), "");
    }

    /** What the table shows at one token count: the interaction term, and fixes whose verdict alone differs from what they add to the others. */
    static List<String> interactionNotes(long t, List<ModelFixResult.Combination> table, List<String> names, double base) {
        int n = names.size();
        if (table.stream().anyMatch(c -> Double.isNaN(c.deltaUs()))) return List.of("T=" + t + ": the interaction table has failed rows; no interaction term");
        double combined = table.getLast().deltaUs(), sumAlone = 0;
        for (int i = 0; i < n; i++) sumAlone += table.get(1 + i).deltaUs();
        List<String> notes = new ArrayList<>();
        notes.add(String.format(Locale.ROOT, "T=%d: together %+.1f us vs the sum of each alone %+.1f us (interaction %+.1f us)", t, combined, sumAlone, combined - sumAlone));
        double threshold = 0.01 * base;
        for (int i = 0; i < n; i++) {
            double alone = table.get(1 + i).deltaUs();
            double without = n >= 3 ? table.get(1 + n + i).deltaUs() : table.get(1 + (1 - i)).deltaUs();
            double marginal = combined - without;
            if (alone > -threshold && marginal < -threshold)
                notes.add(String.format(Locale.ROOT, "T=%d: %s: no win alone (%+.1f us) but %+.1f us in combination: keep it with the others", t, names.get(i), alone, marginal));
            else if (alone < -threshold && marginal > -threshold)
                notes.add(String.format(Locale.ROOT, "T=%d: %s: wins alone (%+.1f us) but adds nothing in combination (%+.1f us)", t, names.get(i), alone, marginal));
        }
        return notes;
    }

    /** Replaces what step 05 kept (a reference row added to it). */
    public static void save(ExperimentFolder ex, ModelFixResult result) { StepResults.save(ex.file(Step.FIX, FILE), result); }

    /** Not ex.stepDir: a fix refused before anything is timed must leave no empty steps/05-fix/ behind; the first save makes it. */
    private static PartialStep<ModelFixResult> partial(ExperimentFolder ex) {
        return new PartialStep<>(ex, ex.dir().resolve(ExperimentFolder.STEPS_DIR).resolve(Step.FIX.notebook()).resolve(FILE + ".json"));
    }

    /**
     * What step 05 kept for the model: the finished run's record; when the step has not finished (no step marker), the rows
     * the run that stopped part-way saved after each token count it finished ({@code model-fix.partial.json}).
     */
    public static ModelFixResult load(ExperimentFolder ex) {
        if (ex.has(Step.FIX)) return StepResults.load(ex.file(Step.FIX, FILE), ModelFixResult.class, ModelFixResult.FORMAT);
        PartialStep<ModelFixResult> partial = partial(ex);
        // The part-way record of a run, else (written by a gluelab that saved part-way over the record) the record itself.
        Path left = java.nio.file.Files.isRegularFile(partial.partial()) ? partial.partial() : partial.file();
        if (!java.nio.file.Files.isRegularFile(left)) throw ex.missing(Step.FIX);
        return StepResults.load(left, ModelFixResult.class, ModelFixResult.FORMAT);
    }

    /**
     * What a run stopped now leaves, as the stop line says it: "the rows of 1 of 2 token counts kept in
     * steps/05-fix/model-fix.partial.json", or "no token count had finished". The next run times every token count again.
     */
    public static KeptSoFar keptSoFar(ExperimentFolder ex) {
        PartialStep<ModelFixResult> partial = partial(ex);
        List<Long> planned = ex.plan().tokens();
        int timed = 0;
        if (java.nio.file.Files.isRegularFile(partial.partial())) {
            try {
                ModelFixResult r = StepResults.load(partial.partial(), ModelFixResult.class, ModelFixResult.FORMAT);
                timed = (int) java.util.stream.Stream.concat(r.rows().stream().map(ModelFixResult.FixRow::tokens), r.sizing().stream().map(ModelFixResult.SizingRow::tokens))
                        .distinct().count();
            } catch (RuntimeException unreadable) {
                timed = 0;
            }
        }
        return timed == 0 ? new KeptSoFar("no token count had finished", false) : new KeptSoFar("the rows of " + timed + " of " + Numbers.count(planned.size(), "token count")
                + " kept in " + ex.dir().relativize(partial.partial()) + (ex.has(Step.FIX) ? "" : " (step 07 can confirm those)"), false);
    }
}
