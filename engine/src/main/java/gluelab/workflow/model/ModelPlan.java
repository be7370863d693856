package gluelab.workflow.model;

import gluelab.model.ModelSpec;
import gluelab.tensor.TensorSpec;
import gluelab.torch.InputSpecs;
import gluelab.torch.ModelCheck;
import gluelab.torch.ModelEntry;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.units.Numbers;
import gluelab.workflow.experiment.CheckedInputs;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;

import java.util.List;

/**
 * Step 00 for the analyst's model: the plan names the model file, its inputs and token counts, and
 * is written only once the model has been checked (the file imports, build returns an nn.Module, the
 * inputs match its forward) at the smallest token count, so no later step times a model that cannot run.
 * What the check ran is kept beside the plan, so a plan.json whose inputs are edited afterwards is refused
 * when it is read ({@link CheckedInputs}).
 */
public final class ModelPlan {
    private ModelPlan() {}

    /** The plan written (or the same one resumed), and what the check found. */
    public record Planned(ExperimentPlan plan, ModelCheck check) {}

    /** The subject's inputs at {@code tokens} tokens, with {@code spec}'s symbols; errors name the input. */
    public static List<TensorSpec> inputs(ModelSubject subject, ModelSpec spec, long tokens) {
        return InputSpecs.parse(subject.inputs(), InputSpecs.symbols(spec, tokens));
    }

    /** The subject's file and function as they are written, for names; reading the plan checked their form. */
    public static ModelEntry entry(ModelSubject subject) { return new ModelEntry(java.nio.file.Path.of(subject.file()), subject.function()); }

    /**
     * The plan's model, for a step that runs it: a file moved or deleted since the plan was written is refused
     * here, before the step starts, naming plan.json and its field (not the command line's --model-file).
     */
    public static ModelEntry entry(ExperimentFolder ex) {
        ModelSubject s = ex.plan().modelSubject();
        java.nio.file.Path file = java.nio.file.Path.of(s.file());
        if (!java.nio.file.Files.isRegularFile(file))
            throw new IllegalArgumentException(ex.planFile() + ": field \"subject.file\" ('" + s.file() + "'): no such file " + file.toAbsolutePath()
                    + "; put the model file back there, or plan a new experiment with --model-file");
        return entry(s);
    }

    /**
     * Checks the model and writes the plan. {@code subject}'s file and inputs are checked here, in Java,
     * first (a missing file, an unknown symbol); then the harness builds the model and runs one forward.
     */
    public static Planned write(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, ModelSubject subject, List<Long> tokens,
                                double stopFraction, String device) {
        return write(ex, bridge, spec, subject, tokens, stopFraction, device, StepLimits.CHECK);
    }

    /** As {@link #write(ExperimentFolder, TorchBridge, ModelSpec, ModelSubject, List, double, String)}, the check under {@code limits}. */
    public static Planned write(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, ModelSubject subject, List<Long> tokens,
                                double stopFraction, String device, StepLimits limits) {
        try (var running = ex.running(gluelab.workflow.experiment.Step.PLAN)) {
            ModelEntry entry = ModelEntry.parse(subject.entry());
            ModelSubject stored = new ModelSubject(entry.file().toString(), entry.function(), subject.inputs(), subject.blocks(), subject.regions());
            tokens = gluelab.bench.Tokens.checkAll(tokens);
            for (long t : tokens) inputs(stored, spec, t);
            long smallest = tokens.stream().mapToLong(Long::longValue).min().orElseThrow();
            ModelCheck check = ModelCheck.run(bridge, entry, inputs(stored, spec, smallest), smallest, stored.blocks(), stored.regions(), limits,
                    InputSpecs.hint(stored.inputs(), spec, smallest));
            // A --blocks the model does not have would silently drop the per-block tree from every step.
            if (!stored.blocks().isBlank() && check.blocks() == 0) {
                String why = check.blocksError().isBlank() ? "--blocks " + stored.blocks() + ": no repeated blocks there" : check.blocksError();
                throw new IllegalArgumentException(why + " (name the attribute that holds the repeated blocks, e.g. --blocks layers, or leave --blocks out and they are found)");
            }
            ExperimentPlan plan = ex.plan(ExperimentPlan.of(spec.name(), tokens, stopFraction, device, stored), new CheckedInputs(stored.inputs(), check.forward()));
            ex.devlog().note("model check at " + Numbers.count(smallest, "token") + ": " + check.describe());
            return new Planned(plan, check);
        }
    }
}
