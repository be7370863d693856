package gluelab.cli;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.files.Json;
import gluelab.files.Locations;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.TorchSide;
import gluelab.workflow.confirm.ModelConfirmation;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.model.ModelFixStep;
import picocli.CommandLine.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code gluelab model fix} and {@code gluelab model confirm}: steps 05 and 07 on the analyst's model. */
final class ModelFixCommands {
    private ModelFixCommands() {}

    @Command(name = "fix", mixinStandardHelpOptions = true,
            description = {"Step 05: each fix (a named variant of your model) fwd+bwd against the model as written, in one process, cheapest first,",
                    "at every planned token count, with the interaction table (each alone, all but one, all together) and region sizing A/B/C.",
                    "A fix is NAME=PART[+PART...], a part one of:",
                    "  regions:model.Attention.rope,model.FeedForward.forward",
                    "  swap:model.apply_rotary_emb=rewrites.py:apply_rotary_emb_real",
                    "  options:model.RMSNorm.forward:epilogue_fusion=false,coordinate_descent_tuning=true",
                    "  autograd:model.apply_rotary_emb=rewrites.py:RotaryReal.apply",
                    "Exit 1 when every row failed (nothing measured; the rows and their reasons are kept)."})
    static final class Fix implements Callable<Integer> {
        @Mixin ModelCommand.Common common;

        @Option(names = "--fix", paramLabel = "NAME=SPEC", description = "a fix to try (repeat for several; none: the shipped example model's defaults, printed)") List<String> fixes = new ArrayList<>();

        @Option(names = "--sizing", paramLabel = "A,B,C", description = "region sizing: A compiled alone (B eager), A and B as two regions, C (around both) as one")
        String sizing;

        @Option(names = "--reference", paramLabel = "FIX=OP", description = "add the catalogue's fused kernel for OP as the fix's \"best known kernel\" row (the op alone, not in the model)")
        java.util.Map<String, String> references = new java.util.LinkedHashMap<>();

        @Option(names = "--timeout", defaultValue = "15", description = "seconds per measurement at most; it also sets the step limit: a build or step of the model that runs max(60, 4 x this) s fails its row, naming the line it was stuck on (default: ${DEFAULT-VALUE})") double timeout;

        @Mixin ModelCommand.CompileLimitOption compile;

        @Override public Integer call() {
            var limits = compile.applied(gluelab.torch.StepLimits.forMeasurement(timeout));
            references.values().forEach(gluelab.ops.Catalogue::parse);
            ModelFixStep.Sizing sz = sizing == null ? null : ModelFixStep.Sizing.parse(sizing);
            ExperimentFolder ex = common.runnable();
            var plan = ex.plan();
            if (fixes.isEmpty() && sz == null) {
                var defaults = gluelab.workflow.model.ModelFixDefaults.of(plan.modelSubject())
                        .orElseThrow(() -> gluelab.workflow.model.ModelFixDefaults.noneFor(plan.modelSubject(), ex.name(), true));
                fixes = defaults.fixes();
                if (references.isEmpty()) references = new java.util.LinkedHashMap<>(defaults.references());
                System.err.println("no --fix given: the defaults for " + defaults.model() + ": " + fixes.stream().map(f -> "--fix " + f).toList()
                        + (references.isEmpty() ? "" : " --reference " + references));
            }
            List<ModelFix> parsed = fixes.stream().map(ModelFix::parse).toList();
            var spec = SpecRegistry.load(Locations.specFolders()).get(plan.model());
            try (var running = ex.running(gluelab.workflow.experiment.Step.FIX); var stop = ModelStepStop.install(ex, gluelab.workflow.experiment.Step.FIX, () -> ModelFixStep.keptSoFar(ex));
                 Device device = Devices.open(plan.device()); TorchSide torch = common.start(device)) {
                var r = ModelFixStep.run(ex, device, torch.bridge(), spec, parsed, sz, TimingConfig.defaults().withStop(StopRule.standard().withTimeout(timeout)),
                        torch.flushBytes(), limits, new ConsoleProgress(System.err));
                if (!references.isEmpty()) {
                    try (gluelab.lab.Gluelab lab = gluelab.lab.Gluelab.open(plan.device())) {
                        r = lab.modelFixReferences(ex, references);
                    }
                }
                System.out.println(common.json ? Json.write(r) : r.text());
                return ModelCommand.rowsStatus(ModelFixStep.nothingMeasured(r), ex, gluelab.workflow.experiment.Step.FIX, "measured");
            }
        }
    }

    @Command(name = "confirm", mixinStandardHelpOptions = true,
            description = "Step 07: step 05's fixes against the model as written in 3 fresh Python processes (quiet checks, pids, clocks, raw samples), "
                    + "at the token counts step 05 measured (a step that stopped part-way: those it finished; the others are named), "
                    + "launched normally and as a CUDA-graph replay of the whole fwd+bwd step (CUDA only). "
                    + "Exit 1 when no row was measured (the record and its reasons are kept).")
    static final class Confirm implements Callable<Integer> {
        @Mixin ModelCommand.Common common;

        @Option(names = "--only", split = ",", paramLabel = "FIX", description = "confirm only these of step 05's fixes (default: all of them)") List<String> only;

        @Option(names = "--timeout", defaultValue = "15", description = "seconds per measurement at most; it also sets the step limit: a build or step of the model that runs max(60, 4 x this) s fails its row, naming the line it was stuck on (default: ${DEFAULT-VALUE})") double timeout;

        @Mixin ModelCommand.CompileLimitOption compile;

        @Override public Integer call() {
            var limits = compile.applied(gluelab.torch.StepLimits.forMeasurement(timeout));
            ExperimentFolder ex = common.runnable();
            var fixResult = ModelFixStep.load(ex);
            List<ModelFix> fixes = fixResult.fixes();
            if (only != null) {
                for (String n : only) {
                    if (fixes.stream().noneMatch(f -> f.name().equals(n)))
                        throw new IllegalArgumentException("--only " + n + ": step 05 tried no such fix; it tried " + fixes.stream().map(ModelFix::name).toList());
                }
                fixes = fixes.stream().filter(f -> only.contains(f.name())).toList();
            }
            var plan = ex.plan();
            var spec = SpecRegistry.load(Locations.specFolders()).get(plan.model());
            java.time.Instant started = java.time.Instant.now();
            try (var running = ex.running(gluelab.workflow.experiment.Step.CONFIRM); var stop = ModelStepStop.install(ex, gluelab.workflow.experiment.Step.CONFIRM, () -> ModelConfirmation.keptSoFar(ex, started, ModelConfirmation.PROCESSES));
                 Device device = Devices.open(plan.device())) {
                var python = gluelab.torch.PythonFinder.standard().find(common.python, gluelab.torch.PythonSource.FLAG);
                var r = new ModelConfirmation(device, python).progress(new ConsoleProgress(System.err)).limits(limits)
                        .run(ex, spec, fixResult, fixes, TimingConfig.defaults().withStop(StopRule.standard().withTimeout(timeout)));
                System.out.println(common.json ? Json.write(r) : r.text());
                return ModelCommand.rowsStatus(r.nothingMeasured(), ex, gluelab.workflow.experiment.Step.CONFIRM, "measured");
            }
        }
    }
}
