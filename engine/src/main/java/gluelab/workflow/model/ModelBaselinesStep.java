package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.model.ModelSpec;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimingConfig;
import gluelab.torch.KeptUnits;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelEntry;
import gluelab.torch.ModelTree;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.units.Numbers;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Step 01 for the analyst's model: every tree (eager, per-block, whole, and regions when the plan
 * lists any) at every planned token count, fwd+bwd, kept in the experiment as
 * {@code steps/01-baselines/model-baselines.json} (raw samples, compile logs' accounting, failures
 * with their reasons) with a devlog line per row, and the quiet check at its start and end ({@link StepQuiet}).
 */
public final class ModelBaselinesStep {
    public static final String FILE = "model-baselines";

    private ModelBaselinesStep() {}

    /** The trees the plan asks for: the regions tree only when it names regions. */
    public static List<ModelTree> trees(ModelSubject subject) {
        List<ModelTree> trees = new ArrayList<>(List.of(ModelTree.EAGER, ModelTree.PER_BLOCK, ModelTree.WHOLE));
        if (!subject.regions().isEmpty()) trees.add(ModelTree.REGIONS);
        return trees;
    }

    /** The plan's inputs at each of its token counts, in the plan's order. */
    static Map<Long, List<TensorSpec>> inputsAt(ExperimentPlan plan, ModelSpec spec) {
        Map<Long, List<TensorSpec>> at = new LinkedHashMap<>();
        for (long t : plan.tokens()) at.put(t, ModelPlan.inputs(plan.modelSubject(), spec, t));
        return at;
    }

    public static ModelBaselines run(ExperimentFolder ex, Device device, TorchBridge bridge, ModelSpec spec, TimingConfig timing, long flushBytes, Progress progress) {
        return run(ex, device, bridge, spec, timing, flushBytes, StepLimits.forMeasurement(timing.stop().timeoutSeconds()), progress);
    }

    /**
     * As above, the model's code under {@code limits}. Each row is written to the part-way record as it finishes, so a run ended
     * from outside keeps the rows it finished (and an earlier finished run keeps its record and marker); the next run keeps
     * those (when the plan and the model file are unchanged) and times only the others.
     */
    public static ModelBaselines run(ExperimentFolder ex, Device device, TorchBridge bridge, ModelSpec spec, TimingConfig timing, long flushBytes, StepLimits limits,
                                     Progress progress) {
        try (var running = ex.running(Step.BASELINES)) {
            ExperimentPlan plan = ex.plan();
            ModelSubject s = plan.modelSubject();
            ModelEntry entry = ModelPlan.entry(ex);
            StepQuiet quiet = StepQuiet.start(device);
            PartialStep<ModelBaselines> partial = partial(ex);
            Path file = partial.file();
            List<ModelBaselines.Row> kept = left(ex, partial);
            if (!kept.isEmpty()) {
                String note = "kept " + Numbers.count(kept.size(), "row") + " of a run that stopped part-way (" + ex.dir().relativize(partial.partial()) + ")";
                progress.update("model baselines", kept.size(), (long) plan.tokens().size() * trees(s).size(), note);
                ex.devlog().note("step " + Step.BASELINES + ": " + note);
            }
            ModelBaselines b = ModelBaselines.run(bridge, entry, inputsAt(plan, spec), trees(s), s.regions(), s.blocks(), timing, flushBytes, limits,
                    new KeptUnits<>(kept, sofar -> {
                        partial.save(new ModelBaselines(ModelBaselines.FORMAT, entry.toString(), bridge.versions(), sofar));
                        devlog(ex, sofar.getLast());
                    }), progress);
            partial.finish(b);
            quiet = quiet.ended(device);
            String summary = summary(b, entry.shortName(), trees(s).size(), plan.tokens().size()) + quiet.suffix();
            Map<String, String> files = quiet.record(ex, Step.BASELINES, Map.of(FILE, ex.dir().relativize(file).toString()));
            if (nothingMeasured(b)) ex.failed(Step.BASELINES, files, "nothing measured: " + summary);
            else ex.done(Step.BASELINES, List.of(), files, summary);
            return b;
        }
    }

    private static PartialStep<ModelBaselines> partial(ExperimentFolder ex) {
        return new PartialStep<>(ex, ex.stepDir(Step.BASELINES).resolve(FILE + ".json"));
    }

    /** The rows of a run that stopped part-way that the next run keeps (none when the plan, the model file or the model changed since). */
    private static List<ModelBaselines.Row> left(ExperimentFolder ex, PartialStep<ModelBaselines> partial) {
        ExperimentPlan plan = ex.plan();
        ModelEntry entry = ModelPlan.entry(ex);
        return partial.left(entry, ModelBaselines.class, ModelBaselines.FORMAT)
                .filter(b -> b.model().equals(entry.toString())).map(b -> keptRows(b.rows(), plan.tokens(), trees(plan.modelSubject()))).orElse(List.of());
    }

    /**
     * What a run stopped now leaves for the next one, as the stop line says it: "2 of 4 rows kept in
     * steps/01-baselines/model-baselines.partial.json", or "no row had finished".
     */
    public static KeptSoFar keptSoFar(ExperimentFolder ex) {
        PartialStep<ModelBaselines> partial = partial(ex);
        int kept = left(ex, partial).size();
        int planned = ex.plan().tokens().size() * trees(ex.plan().modelSubject()).size();
        return kept == 0 ? new KeptSoFar("no row had finished", false)
                : new KeptSoFar(kept + " of " + Numbers.count(planned, "row") + " kept in " + ex.dir().relativize(partial.partial()), true);
    }

    /** The longest run of measured {@code rows} that is the plan's jobs from the first (token count, then tree), in order; a failed row runs again. */
    static List<ModelBaselines.Row> keptRows(List<ModelBaselines.Row> rows, List<Long> tokens, List<ModelTree> trees) {
        List<ModelBaselines.Row> kept = new ArrayList<>();
        jobs:
        for (long t : tokens) {
            for (ModelTree tree : trees) {
                if (kept.size() >= rows.size()) break jobs;
                ModelBaselines.Row r = rows.get(kept.size());
                // A failed row is no finished work: it may be the stop itself (the harness ended by the Ctrl-C that stopped the step).
                if (r.tree() != tree || r.tokens() != t || r.failed()) break jobs;
                kept.add(r);
            }
        }
        return kept;
    }

    private static void devlog(ExperimentFolder ex, ModelBaselines.Row r) {
        ex.devlog().measurement(r.tree().id() + " @ " + Numbers.count(r.tokens(), "token") + " fwd+bwd: "
                + (r.failed() ? "FAILED: " + r.error() : String.format("%.1f us (noise %.1f%%), compile %.2f s, %d graphs, %d breaks, %d recompiles",
                r.wallUs(), 100 * r.run().noise(), r.compile().seconds(), r.compile().graphs(), r.compile().graphBreaks(), r.compile().recompiles())
                + graphText(r.graph())));
    }

    /** The step's one line: rows, trees and token counts (each singular where it is one), and how many failed. */
    static String summary(ModelBaselines b, String model, int trees, int tokenCounts) {
        long failed = b.rows().stream().filter(ModelBaselines.Row::failed).count();
        return Numbers.count(b.rows().size(), "row") + " of " + model + " (" + Numbers.count(trees, "tree") + " x " + Numbers.count(tokenCounts, "token count") + ")"
                + (failed == 0 ? "" : ", " + failed + " failed");
    }

    /**
     * A row's time against eager's at its token count: "3.98x faster (per-block vs eager)", inconclusive within the noise
     * ({@link SpeedRatio}), with its caveat when either is noisy; no ratio against a failed arm, and none for eager itself ("").
     */
    public static String vsEager(ModelBaselines b, ModelBaselines.Row r, String noisyNote) {
        if (r.failed()) return "FAILED: " + r.error();
        if (r.tree() == ModelTree.EAGER) return "";
        var eager = b.row(ModelTree.EAGER, r.tokens());
        if (eager.isEmpty() || eager.get().failed()) return "no ratio: eager failed";
        return SpeedRatio.of(eager.get().wallUs(), eager.get().run().noise(), r.wallUs(), r.run().noise(), r.tree().id(), ModelTree.EAGER.id()) + (b.noisy(r) ? " " + noisyNote : "");
    }

    /** A row's CUDA-graph replay against eager's replay, as {@link #vsEager}. */
    static String graphVsEager(ModelBaselines b, ModelBaselines.Row r) {
        ModelBaselines.GraphReplay g = r.graph();
        if (g.failed()) return "FAILED: " + g.error();
        if (r.tree() == ModelTree.EAGER) return "";
        var eager = b.row(ModelTree.EAGER, r.tokens()).map(ModelBaselines.Row::graph).filter(e -> e.run() != null);
        if (eager.isEmpty()) return "no ratio: eager's replay failed";
        return SpeedRatio.of(eager.get().wallUs(), eager.get().run().noise(), g.wallUs(), g.run().noise(), r.tree().id() + " graph", "eager graph");
    }

    /** Step 01's rows as the command line prints them: a normal launch per tree and token count, and its graph replay where one ran. */
    public static String text(ModelBaselines b) {
        StringBuilder sb = new StringBuilder("model baselines of " + b.model() + ", fwd+bwd (" + b.versions().describe() + ")\n");
        String row = "  %-10s %7s %-6s %11s %8s %11s %8s %10s %10s %7s %7s %10s  %s%n";
        sb.append(String.format(Locale.ROOT, row, "tree", "tokens", "launch", "wall_us", "noise", "kernel_us", "kernels", "peak_MiB", "compile_s", "graphs", "breaks",
                "recompiles", "vs eager / error"));
        for (ModelBaselines.Row r : b.rows()) {
            sb.append(String.format(Locale.ROOT, row, r.tree().id(), r.tokens(), "normal",
                    r.failed() ? "-" : String.format(Locale.ROOT, "%.1f", r.wallUs()), r.failed() ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * r.run().noise()),
                    Double.isNaN(r.kernelSeconds()) ? "-" : String.format(Locale.ROOT, "%.1f", r.kernelUs()), Double.isNaN(r.kernelSeconds()) ? "-" : Integer.toString(r.kernels()),
                    r.peakBytes() < 0 ? "-" : String.format(Locale.ROOT, "%.1f", r.peakBytes() / 1048576.0), String.format(Locale.ROOT, "%.2f", r.compile().seconds()),
                    r.compile().graphs(), r.compile().graphBreaks(), r.compile().recompiles(), vsEager(b, r, "(noisy: measure again before trusting it)")));
            ModelBaselines.GraphReplay g = r.graph();
            if (g.run() == null && !g.failed()) continue; // skipped: said once below
            sb.append(String.format(Locale.ROOT, row, r.tree().id(), r.tokens(), "graph",
                    g.run() == null ? "-" : String.format(Locale.ROOT, "%.1f", g.wallUs()), g.run() == null ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * g.run().noise()),
                    "", "", "", "", "", "", "", graphVsEager(b, r)));
        }
        b.rows().stream().flatMap(r -> Stream.of(r.kernelSkip(), r.peakSkip(), r.failed() ? "" : r.graph().skip()))
                .filter(x -> !x.isEmpty()).distinct().forEach(x -> sb.append("  skipped: ").append(x).append('\n'));
        return sb.toString();
    }

    /** Every row failed: the step kept the reasons but measured nothing. */
    public static boolean nothingMeasured(ModelBaselines b) { return b.rows().stream().allMatch(ModelBaselines.Row::failed); }

    /** The devlog's words on a row's CUDA-graph replay. */
    static String graphText(ModelBaselines.GraphReplay g) {
        if (g.failed()) return "; graph replay FAILED: " + g.error();
        if (g.run() == null) return "; graph replay skipped: " + g.skip();
        return String.format("; graph replay %.1f us (noise %.1f%%)", g.wallUs(), 100 * g.run().noise());
    }

    /** What step 01 kept for the model. */
    public static ModelBaselines load(ExperimentFolder ex) {
        return StepResults.load(ex.file(Step.BASELINES, FILE), ModelBaselines.class, ModelBaselines.FORMAT);
    }
}
