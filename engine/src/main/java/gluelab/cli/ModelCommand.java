package gluelab.cli;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.files.Json;
import gluelab.files.Locations;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.PythonFinder;
import gluelab.torch.PythonSource;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.model.ModelBaselinesStep;
import picocli.CommandLine.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "model", mixinStandardHelpOptions = true,
        description = {"The workflow steps on an experiment whose plan names your model (gluelab experiment NAME --model-file FILE.py:build ...)."},
        subcommands = {ModelCommand.Baselines.class, ModelCommand.Profile.class, ModelCommand.Rank.class, ModelFixCommands.Fix.class,
                ModelGraphsCommand.class, ModelFixCommands.Confirm.class, ModelCheckCommand.class,
                ModelWriteupCommands.Stack.class, ModelWriteupCommands.Findings.class, ModelWriteupCommands.Feedback.class})
public final class ModelCommand implements Runnable {
    @Spec Model.CommandSpec spec;

    @Override public void run() { spec.commandLine().usage(System.out); }

    /** The experiment and the torch side every model step needs. */
    static final class Common {
        @Parameters(index = "0", paramLabel = "NAME", description = "experiment name (planned with --model-file)") String name;

        @Option(names = "--experiments-root", description = EnvironmentHelp.EXPERIMENTS_ROOT) Path root;

        @Option(names = "--python", description = "the Python with torch (default: as `gluelab torch`)") String python;

        @Option(names = "--json", description = "print JSON") boolean json;

        ExperimentFolder experiment() {
            Path base = root == null ? ExperimentFolder.defaultRoot() : root;
            if (!Files.isDirectory(base.resolve(ExperimentFolder.checkName(name))))
                throw new IllegalArgumentException("no experiment '" + name + "' in " + base.toAbsolutePath() + ExperimentCommand.elsewhere(name));
            ExperimentFolder ex = ExperimentFolder.open(name, base);
            ex.plan().modelSubject();
            return ex;
        }

        /** The experiment of a step that runs the model: its model file is checked here, before torch starts (an error names plan.json's field). */
        ExperimentFolder runnable() {
            ExperimentFolder ex = experiment();
            gluelab.workflow.model.ModelPlan.entry(ex);
            return ex;
        }

        TorchSide start(Device device) { return TorchSide.start(PythonFinder.standard().find(python, PythonSource.FLAG), device); }
    }

    /** The compile limit of every step that compiles your model: torch.compile's time within one build or step, which the step limit leaves out. */
    static final class CompileLimitOption {
        @Option(names = "--compile-limit", paramLabel = "SECONDS", defaultValue = "" + gluelab.torch.StepLimits.COMPILE_SECONDS,
                description = "how long torch.compile may compile within one build or fwd+bwd step of your model (not counted in the step limit); "
                        + "past it the row fails naming the line dynamo was tracing, e.g. a loop it unrolls for ever (default: ${DEFAULT-VALUE})")
        double seconds;

        gluelab.torch.StepLimits applied(gluelab.torch.StepLimits limits) { return limits.withCompile(seconds, "--compile-limit"); }
    }

    /** The step limit of the steps that time nothing (03, 06, 08), with the compile limit. */
    static final class StepLimitOption {
        @Option(names = "--step-limit", paramLabel = "SECONDS", defaultValue = "" + gluelab.torch.StepLimits.MIN_STEP_SECONDS,
                description = "how long your model's build or one fwd+bwd step may run before it is stopped as hung, its compile not counted "
                        + "(default: ${DEFAULT-VALUE}; 0: no limit, the compile limit neither)")
        double seconds;

        @Mixin CompileLimitOption compile;

        gluelab.torch.StepLimits limits() { return compile.applied(gluelab.torch.StepLimits.ofStep(seconds, "--step-limit")); }
    }

    /**
     * The exit status of a step that produced rows: 1, saying so, when every row failed (the record is kept and the status shows
     * the step as failed: failures are data, but nothing was {@code measured}); else 0.
     */
    static int rowsStatus(boolean nothing, ExperimentFolder ex, gluelab.workflow.experiment.Step step, String measured) {
        if (!nothing) return 0;
        System.err.println("nothing was " + measured + ": every row of step " + step + " failed (the reasons are kept in "
                + ex.dir().relativize(ex.dir().resolve(ExperimentFolder.STEPS_DIR).resolve(step.notebook())) + "/; the status shows the step as failed)");
        return 1;
    }

    @Command(name = "baselines", mixinStandardHelpOptions = true,
            description = "Step 01: the model fwd+bwd as eager, per-block, whole and regions at each planned token count (wall, kernel time, peak memory, compiles). "
                    + "Exit 1 when every row failed (nothing measured; the rows and their reasons are kept).")
    static final class Baselines implements Callable<Integer> {
        @Mixin Common common;

        @Option(names = "--timeout", defaultValue = "15", description = "seconds per measurement at most; it also sets the step limit: a build or step of the model that runs max(60, 4 x this) s fails its row, naming the line it was stuck on (default: ${DEFAULT-VALUE})") double timeout;

        @Mixin CompileLimitOption compile;

        @Override public Integer call() {
            var limits = compile.applied(gluelab.torch.StepLimits.forMeasurement(timeout));
            ExperimentFolder ex = common.runnable();
            var plan = ex.plan();
            var spec = SpecRegistry.load(Locations.specFolders()).get(plan.model());
            try (var running = ex.running(gluelab.workflow.experiment.Step.BASELINES); var stop = ModelStepStop.install(ex, gluelab.workflow.experiment.Step.BASELINES, () -> ModelBaselinesStep.keptSoFar(ex));
                 Device device = Devices.open(plan.device()); TorchSide torch = common.start(device)) {
                var b = ModelBaselinesStep.run(ex, device, torch.bridge(), spec, TimingConfig.defaults().withStop(StopRule.standard().withTimeout(timeout)),
                        torch.flushBytes(), limits, new ConsoleProgress(System.err));
                System.out.println(common.json ? Json.write(b) : ModelBaselinesStep.text(b) + markLine(ex, gluelab.workflow.experiment.Step.BASELINES));
                return rowsStatus(ModelBaselinesStep.nothingMeasured(b), ex, gluelab.workflow.experiment.Step.BASELINES, "measured");
            }
        }
    }

    /** "busy machine: ..." on a line of its own when {@code step}'s quiet check found one, else "". */
    static String markLine(ExperimentFolder ex, gluelab.workflow.experiment.Step step) {
        String mark = gluelab.workflow.model.StepQuiet.markOf(ex, step);
        return mark.isEmpty() ? "" : (step == gluelab.workflow.experiment.Step.PROFILE_DIFF ? "profiled by step 03 on a " : "") + mark + "\n";
    }

    /** The device's calibrated bandwidth (bytes per second), from gluelab's calibration cache or measured now. */
    static double bandwidth(Device device) {
        return new gluelab.calibrate.Calibrator(device, Locations.calibrationCache()).calibrate(false).bandwidth();
    }

    @Command(name = "profile", mixinStandardHelpOptions = true,
            description = "Step 03: each tree profiled by gluelab at the largest planned token count (torch.profiler, no script of yours): traces, "
                    + "kernel table, diff against eager, ops per line of your model file.")
    static final class Profile implements Callable<Integer> {
        @Mixin Common common;

        @Mixin StepLimitOption limit;

        @Override public Integer call() throws Exception {
            var limits = limit.limits();
            ExperimentFolder ex = common.runnable();
            var plan = ex.plan();
            var spec = SpecRegistry.load(Locations.specFolders()).get(plan.model());
            try (var running = ex.running(gluelab.workflow.experiment.Step.PROFILE_DIFF); var stop = ModelStepStop.install(ex, gluelab.workflow.experiment.Step.PROFILE_DIFF, () -> gluelab.workflow.model.ModelProfileStep.keptSoFar(ex));
                 Device device = Devices.open(plan.device()); TorchSide torch = common.start(device)) {
                var r = gluelab.workflow.model.ModelProfileStep.run(ex, device, torch.bridge(), spec, bandwidth(device), limits, new ConsoleProgress(System.err));
                System.out.println(common.json ? Json.write(r.profile()) : Files.readString(ex.file(gluelab.workflow.experiment.Step.PROFILE_DIFF,
                        gluelab.workflow.model.ModelProfileStep.SUMMARY)));
                return rowsStatus(r.profile().nothingProfiled(), ex, gluelab.workflow.experiment.Step.PROFILE_DIFF, "profiled");
            }
        }
    }

    @Command(name = "rank", mixinStandardHelpOptions = true,
            description = "Step 04: a tree's profile ranked per source location and op by (measured - ideal) x share of the step, with the plan's stop rule.")
    static final class Rank implements Callable<Integer> {
        @Mixin Common common;

        @Option(names = "--tree", defaultValue = "eager", description = "the profiled tree to rank: eager, per-block, whole or regions (default: ${DEFAULT-VALUE})")
        String tree;

        @Option(names = "--top", defaultValue = "20", description = "rows to print (default: ${DEFAULT-VALUE})") int top;

        @Option(names = "--peak-tflops", description = "the dense FLOP/s (in TFLOP/s) GEMM and attention floors divide by, for every dtype "
                + "(default: a GPU's bf16 tensor-core spec, fp32 1/16 of it; the CPU's calibrated vector-FMA peak)") Double peakTflops;

        @Override public Integer call() {
            ExperimentFolder ex = common.experiment();
            gluelab.torch.ModelTree t = gluelab.torch.ModelTree.parse(tree);
            if (peakTflops != null && !(peakTflops > 0 && Double.isFinite(peakTflops)))
                throw new IllegalArgumentException("--peak-tflops must be a number > 0, got " + peakTflops);
            // Before the device: a calibration on a busy machine takes half a minute and is not cached, all to say step 03 is missing.
            gluelab.workflow.model.ModelRankStep.profiled(ex, t);
            try (var running = ex.running(gluelab.workflow.experiment.Step.RANK); Device device = Devices.open(ex.plan().device())) {
                var cal = new gluelab.calibrate.Calibrator(device, Locations.calibrationCache()).calibrate(false);
                var peak = peakTflops != null ? gluelab.floor.FlopPeak.declared(peakTflops * 1e12) : gluelab.floor.FlopPeak.of(cal, device.capabilities());
                var r = gluelab.workflow.model.ModelRankStep.run(ex, t, cal.bandwidth(), peak);
                System.out.println(common.json ? Json.write(r) : r.text(top) + markLine(ex, gluelab.workflow.experiment.Step.PROFILE_DIFF) + System.lineSeparator() + r.conclusion());
            }
            return 0;
        }
    }
}
