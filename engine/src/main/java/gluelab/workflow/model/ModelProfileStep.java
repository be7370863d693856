package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.files.AtomicFiles;
import gluelab.model.ModelSpec;
import gluelab.progress.Progress;
import gluelab.torch.KeptUnits;
import gluelab.torch.ModelEntry;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.trace.KernelFamilies;
import gluelab.trace.TraceDiff;
import gluelab.trace.TraceReader;
import gluelab.trace.TraceSummary;
import gluelab.units.Numbers;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Step 03 for the analyst's model, without a script of theirs: every planned tree profiled at the
 * plan's largest token count by the harness; the traces ({@code steps/03-profile-diff/TREE.json.gz})
 * read by the trace import (kernel table, families, symptoms) and each compiled tree diffed against
 * eager; the ops per source location kept as {@code model-profile.json}, a summary in {@code profile.md};
 * the quiet check at its start and end ({@link StepQuiet}), a busy machine marked atop the summary.
 */
public final class ModelProfileStep {
    public static final String FILE = "model-profile", SUMMARY = "profile-summary";

    private ModelProfileStep() {}

    /** The profile and, per tree that ran, the trace import's summary; diffs of each compiled tree against eager. */
    public record Result(ModelProfile profile, Map<ModelTree, TraceSummary> summaries, Map<ModelTree, TraceDiff> diffs) {}

    /** {@code bandwidth}: bytes per second for the trace import's floors (0: none). */
    public static Result run(ExperimentFolder ex, Device device, TorchBridge bridge, ModelSpec spec, double bandwidth, Progress progress) {
        return run(ex, device, bridge, spec, bandwidth, StepLimits.standard(), progress);
    }

    /** As above, the model's code under {@code limits}; a step whose every tree failed is marked failed. */
    public static Result run(ExperimentFolder ex, Device device, TorchBridge bridge, ModelSpec spec, double bandwidth, StepLimits limits, Progress progress) {
        try (var running = ex.running(Step.PROFILE_DIFF)) {
            ExperimentPlan plan = ex.plan();
            StepQuiet quiet = StepQuiet.start(device);
            ModelSubject s = plan.modelSubject();
            long tokens = plan.largestTokens();
            Path dir = ex.stepDir(Step.PROFILE_DIFF);
            Path file = dir.resolve(FILE + ".json");
            ModelEntry entry = ModelPlan.entry(ex);
            List<ModelTree> trees = ModelBaselinesStep.trees(s);
            // Each tree is written as it finishes (its trace first, by the harness) to the part-way record and its own trace folder:
            // a run ended from outside keeps them, the next run profiles the others, and an earlier finished run keeps its record and traces meanwhile.
            PartialStep<ModelProfile> partial = new PartialStep<>(ex, file);
            List<ModelProfile.TreeProfile> kept = left(ex, partial, tokens, trees);
            if (!kept.isEmpty()) {
                String note = "kept " + Numbers.count(kept.size(), "tree") + " of a run that stopped part-way (" + ex.dir().relativize(partial.partial()) + ")";
                progress.update("model profile", kept.size(), trees.size(), note);
                ex.devlog().note("step " + Step.PROFILE_DIFF + ": " + note);
            }
            Path partialTraces = dir.resolve(PARTIAL_TRACES);
            try {
                Files.createDirectories(partialTraces); // the harness writes into it, and makes no folder
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot create " + partialTraces + ": " + gluelab.files.IoErrors.reason(e), e);
            }
            ModelProfile profiled = ModelProfile.run(bridge, entry, ModelPlan.inputs(s, spec, tokens), tokens, trees, s.regions(), s.blocks(), partialTraces, limits,
                    new KeptUnits<>(kept, sofar -> {
                        partial.save(new ModelProfile(ModelProfile.FORMAT, entry.toString(), tokens, sofar));
                        devlog(ex, tokens, sofar.getLast());
                    }), progress);
            ModelProfile profile = tracesInPlace(profiled, dir);
            partial.finish(profile);
            deleteAll(partialTraces);
            // An earlier run's trace of a tree that failed this time: no record names it now.
            for (ModelProfile.TreeProfile t : profile.trees()) if (t.failed()) deleteAll(dir.resolve(t.tree().id() + ".json.gz"));
            Map<ModelTree, TraceSummary> summaries = new LinkedHashMap<>();
            for (ModelProfile.TreeProfile t : profile.trees()) {
                if (t.failed()) continue;
                summaries.put(t.tree(), TraceSummary.of(TraceReader.read(Path.of(t.trace())), 0, KernelFamilies.defaults(), bandwidth > 0 ? bandwidth : null));
            }
            Map<ModelTree, TraceDiff> diffs = new LinkedHashMap<>();
            TraceSummary eager = summaries.get(ModelTree.EAGER);
            if (eager != null) summaries.forEach((tree, sum) -> { if (tree.compiled()) diffs.put(tree, TraceDiff.of(eager, sum)); });
            quiet = quiet.ended(device);
            Path md = dir.resolve(SUMMARY + ".md");
            String text = text(profile, summaries, diffs);
            AtomicFiles.write(md, quiet.quiet() ? text : text.replaceFirst("\n\n", java.util.regex.Matcher.quoteReplacement("\n\n**" + quiet.mark() + "**\n\n")));
            Map<String, String> files = new LinkedHashMap<>();
            files.put(FILE, ex.dir().relativize(file).toString());
            files.put(SUMMARY, ex.dir().relativize(md).toString());
            for (ModelProfile.TreeProfile t : profile.trees()) if (!t.failed()) files.put("trace-" + t.tree().id(), ex.dir().relativize(Path.of(t.trace())).toString());
            String summary = summaries.size() + " of " + Numbers.count(profile.trees().size(), "tree") + " profiled at " + Numbers.count(tokens, "token") + quiet.suffix();
            files = quiet.record(ex, Step.PROFILE_DIFF, files);
            if (profile.nothingProfiled()) ex.failed(Step.PROFILE_DIFF, files, "nothing profiled: " + summary);
            else ex.done(Step.PROFILE_DIFF, List.of(), files, summary);
            return new Result(profile, summaries, diffs);
        }
    }

    /** The folder of the traces of a run under way, moved up beside the record when it finishes. */
    static final String PARTIAL_TRACES = "partial-traces";

    /** The trees of a run that stopped part-way that the next run keeps (none when the plan, the model file, the model or the token count changed since). */
    private static List<ModelProfile.TreeProfile> left(ExperimentFolder ex, PartialStep<ModelProfile> partial, long tokens, List<ModelTree> trees) {
        ModelEntry entry = ModelPlan.entry(ex);
        return partial.left(entry, ModelProfile.class, ModelProfile.FORMAT)
                .filter(p -> p.model().equals(entry.toString()) && p.tokens() == tokens).map(p -> keptTrees(p.trees(), trees)).orElse(List.of());
    }

    /**
     * What a run stopped now leaves for the next one, as the stop line says it: "1 of 3 trees kept in
     * steps/03-profile-diff/model-profile.partial.json (traces in partial-traces/)", or "no tree had finished".
     */
    public static KeptSoFar keptSoFar(ExperimentFolder ex) {
        ExperimentPlan plan = ex.plan();
        Path dir = ex.stepDir(Step.PROFILE_DIFF);
        PartialStep<ModelProfile> partial = new PartialStep<>(ex, dir.resolve(FILE + ".json"));
        List<ModelTree> trees = ModelBaselinesStep.trees(plan.modelSubject());
        int kept = left(ex, partial, plan.largestTokens(), trees).size();
        return kept == 0 ? new KeptSoFar("no tree had finished", false) : new KeptSoFar(kept + " of " + Numbers.count(trees.size(), "tree") + " kept in "
                + ex.dir().relativize(partial.partial()) + " (their traces in " + ex.dir().relativize(dir.resolve(PARTIAL_TRACES)) + "/)", true);
    }

    /**
     * The finished run's traces moved from the partial folder to the step's folder ({@code TREE.json.gz}, replacing the earlier
     * run's), and the profile naming them there.
     */
    static ModelProfile tracesInPlace(ModelProfile p, Path dir) {
        List<ModelProfile.TreeProfile> trees = new ArrayList<>();
        try {
            for (ModelProfile.TreeProfile t : p.trees()) {
                Path placed = dir.resolve(t.tree().id() + ".json.gz");
                if (t.failed()) {
                    trees.add(t);
                    continue;
                }
                Path from = Path.of(t.trace());
                if (!from.toAbsolutePath().normalize().equals(placed.toAbsolutePath().normalize()))
                    Files.move(from, placed, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                trees.add(new ModelProfile.TreeProfile(t.tree(), t.error(), placed.toAbsolutePath().toString(), t.stepUs(), t.rows(), t.keyAverages()));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot move the traces of step " + Step.PROFILE_DIFF + " into " + dir + ": " + gluelab.files.IoErrors.reason(e), e);
        }
        return new ModelProfile(p.format(), p.model(), p.tokens(), trees);
    }

    /** Deletes {@code d}, a file or a folder and what is in it; nothing when absent. */
    private static void deleteAll(Path d) {
        if (!Files.exists(d)) return;
        try (var inside = Files.walk(d)) {
            for (Path x : inside.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(x);
        } catch (java.io.IOException e) {
            // Best effort: the finished record names none of what is left there.
        }
    }

    /** The longest run of {@code kept} that is {@code trees} from the first, in order, each profiled with its trace still on disk; a failed tree runs again. */
    static List<ModelProfile.TreeProfile> keptTrees(List<ModelProfile.TreeProfile> kept, List<ModelTree> trees) {
        List<ModelProfile.TreeProfile> out = new ArrayList<>();
        for (int i = 0; i < Math.min(kept.size(), trees.size()); i++) {
            ModelProfile.TreeProfile t = kept.get(i);
            // A failed tree is no finished work: it may be the stop itself (the harness ended by the Ctrl-C that stopped the step).
            if (t.tree() != trees.get(i) || t.failed() || !Files.isRegularFile(Path.of(t.trace()))) break;
            out.add(t);
        }
        return out;
    }

    private static void devlog(ExperimentFolder ex, long tokens, ModelProfile.TreeProfile t) {
        ex.devlog().measurement("profile of " + t.tree().id() + " @ " + Numbers.count(tokens, "token") + ": "
                + (t.failed() ? "FAILED: " + t.error() : String.format(Locale.ROOT, "%.1f us of ops per step, ", t.stepUs()) + Numbers.count(t.rows().size(), "source row")));
    }

    /** What step 03 kept for the model. */
    public static ModelProfile load(ExperimentFolder ex) {
        return StepResults.load(ex.file(Step.PROFILE_DIFF, FILE), ModelProfile.class, ModelProfile.FORMAT);
    }

    /** A profile is a few steps under the profiler, not a timing: its differences carry no noise bound, step 01's do. */
    static final String UNBOUNDED = "the mean of " + ModelProfile.STEPS + " profiled steps, with the profiler's overhead and no noise bound: step 01 times the trees";

    static String text(ModelProfile p, Map<ModelTree, TraceSummary> summaries, Map<ModelTree, TraceDiff> diffs) {
        StringBuilder sb = new StringBuilder("# Profile of " + p.model() + " at " + Numbers.count(p.tokens(), "token") + " (fwd+bwd, per step)\n\n");
        for (ModelProfile.TreeProfile t : p.trees()) {
            sb.append("## ").append(t.tree().id()).append("\n\n");
            if (t.failed()) {
                sb.append("FAILED: ").append(t.error()).append("\n\n");
                continue;
            }
            TraceSummary s = summaries.get(t.tree());
            // The CPU device runs no kernels: its trees compare by their ops' self time, which is all the trace has.
            boolean kernels = s.kernelCount() > 0;
            sb.append(String.format("trace `%s`: %.1f us of ops per step; ", Path.of(t.trace()).getFileName(), t.stepUs())
                    + (kernels ? String.format("kernels %d (%.1f us)%n%n", s.kernelCount(), s.kernelTimeUs()) : String.format("no kernels (the CPU runs ops)%n%n")));
            if (diffs.containsKey(t.tree())) {
                TraceDiff d = diffs.get(t.tree());
                var eager = p.tree(ModelTree.EAGER).filter(e -> !e.failed());
                if (kernels) sb.append(String.format("against eager: kernel time %+.1f us, kernels %+d%n%n", d.kernelTimeDeltaUs(), d.kernelCountDelta()));
                else if (eager.isPresent()) sb.append(String.format("against eager: ops per step %+.1f us (%+.1f%%; %s)%n%n", t.stepUs() - eager.get().stepUs(),
                        100 * (t.stepUs() / eager.get().stepUs() - 1), UNBOUNDED));
            }
            s.symptoms().forEach(sym -> sb.append("- [").append(sym.id()).append("] ").append(sym.title()).append('\n'));
            // An op at one line splits into a row per input shapes it was called with: the shapes tell those rows apart.
            sb.append("\n| location | op | pass | input shapes | calls | us |\n|---|---|---|---|---|---|\n");
            t.rows().stream().limit(15).forEach(r -> sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %d | %.1f |%n",
                    r.location().isEmpty() ? ModelTables.OUTSIDE : r.location(), r.op(), r.pass(), r.shapes(), r.calls(), r.us())));
            sb.append('\n');
        }
        return sb.toString();
    }
}
