package gluelab.workflow.model;

import gluelab.model.ModelSpec;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelTree;
import gluelab.torch.TorchBridge;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Step 01 for the analyst's model: every tree (eager, per-block, whole, and regions when the plan
 * lists any) at every planned token count, fwd+bwd, kept in the experiment as
 * {@code steps/01-baselines/model-baselines.json} (raw samples, compile logs' accounting, failures
 * with their reasons) with a devlog line per row.
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

    public static ModelBaselines run(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, TimingConfig timing, long flushBytes, Progress progress) {
        ExperimentPlan plan = ex.plan();
        ModelSubject s = plan.modelSubject();
        ModelBaselines b = ModelBaselines.run(bridge, ModelPlan.entry(s), inputsAt(plan, spec), trees(s), s.regions(), s.blocks(), timing, flushBytes, progress);
        Path file = ex.stepDir(Step.BASELINES).resolve(FILE + ".json");
        StepResults.save(file, b);
        for (ModelBaselines.Row r : b.rows()) {
            ex.devlog().measurement(r.tree().id() + " @ " + r.tokens() + " tokens fwd+bwd: "
                    + (r.failed() ? "FAILED: " + r.error() : String.format("%.1f us (noise %.1f%%), compile %.2f s, %d graphs, %d breaks, %d recompiles",
                    r.wallUs(), 100 * r.run().noise(), r.compile().seconds(), r.compile().graphs(), r.compile().graphBreaks(), r.compile().recompiles())
                    + graphText(r.graph())));
        }
        long failed = b.rows().stream().filter(ModelBaselines.Row::failed).count();
        String summary = b.rows().size() + " rows of " + ModelPlan.entry(s).shortName() + " (" + trees(s).size() + " trees x " + plan.tokens().size() + " token counts)"
                + (failed == 0 ? "" : ", " + failed + " failed");
        Map<String, String> files = Map.of(FILE, ex.dir().relativize(file).toString());
        if (nothingMeasured(b)) ex.failed(Step.BASELINES, files, "nothing measured: " + summary);
        else ex.done(Step.BASELINES, List.of(), files, summary);
        return b;
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
