package gluelab.cli;

import gluelab.bench.Tokens;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.lab.Gluelab;
import gluelab.rank.Ranking;
import gluelab.workflow.model.ModelPlan;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = {"Show an experiment folder: its plan and which workflow steps (00-11) have run, with their records and summaries.",
                "With --model and --tokens, write its plan first (step 00; a plan already there must match).",
                "With --model-file FILE.py:FUNCTION, --inputs and --tokens, the plan's subject is your own model: it is checked "
                        + "(imports, returns an nn.Module, inputs match its forward) before the plan is written."})
public final class ExperimentCommand implements Callable<Integer> {
    @Parameters(paramLabel = "NAME", description = "experiment name") String name;

    @Option(names = "--experiments-root", description = EnvironmentHelp.EXPERIMENTS_ROOT) Path root;

    @Option(names = "--model", description = "step 00: the plan's model spec") String model;

    @Option(names = "--tokens", description = "step 00: the plan's token counts, e.g. 2k,4k,16k") String tokens;

    @Option(names = "--stop", defaultValue = "" + Ranking.DEFAULT_STOP_FRACTION,
            description = "step 00: stop when the remaining gap is under this fraction of the layer (default: ${DEFAULT-VALUE})") double stop;

    @Option(names = "--model-file", paramLabel = "FILE.py:FUNCTION", description = "step 00: your model, a function returning an nn.Module (build(T) or build())")
    String modelFile;

    @Option(names = "--inputs", description = "with --model-file: forward's inputs, NAME:DIMS:DTYPE; ... with numbers or symbols T B D H KV HD F E K of --model, e.g. 'x:T,D:bf16'")
    String inputs;

    @Option(names = "--blocks", paramLabel = "ATTRIBUTE", description = "with --model-file: the container of the repeated blocks (default: found in a ModuleList, Sequential or ModuleDict)")
    String blocks;

    @Option(names = "--regions", split = ",", description = "with --model-file: functions compiled on their own with fullgraph=True, e.g. model.Attention.rope,model.FeedForward.forward")
    java.util.List<String> regions;

    @Option(names = "--python", description = "with --model-file: the Python with torch (default: as `gluelab torch`)")
    String python;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "" + gluelab.torch.StepLimits.CHECK_STEP_SECONDS,
            description = "with --model-file: seconds the model check's import and build, and its forward, may each run before it fails "
                    + "naming the line it was stuck on (default: ${DEFAULT-VALUE})")
    double timeout;

    @Mixin DeviceOptions deviceOptions;

    @Override public Integer call() {
        Path base = root == null ? ExperimentFolder.defaultRoot() : root;
        ExperimentFolder.checkName(name); // before any path is made of it: '../x' is no experiment's name, not a missing one
        if (modelFile != null) return planModel(base);
        if (inputs != null || blocks != null || regions != null) throw new IllegalArgumentException("--inputs, --blocks and --regions need --model-file");
        if ((model == null) != (tokens == null)) throw new IllegalArgumentException("give both --model and --tokens to write a plan");
        if (model == null && !java.nio.file.Files.isDirectory(base.resolve(name)))
            throw new IllegalArgumentException("no experiment '" + name + "' in " + base.toAbsolutePath() + " (give --model and --tokens to start one, or --model-file FILE.py:build with --inputs and --tokens for your own model)"
                    + elsewhere(name));
        long[] t = model == null ? null : Tokens.parse(tokens).stream().mapToLong(Long::longValue).toArray();
        boolean existed = java.nio.file.Files.isDirectory(base.resolve(name));
        ExperimentFolder ex = ExperimentFolder.open(name, base);
        if (model != null) {
            try (Gluelab lab = Gluelab.open(deviceOptions.device)) {
                saySorted(lab.plan(ex, model, stop, t));
            } catch (RuntimeException e) {
                // A plan that could not be written must not leave an empty experiment behind to be mistaken for one.
                if (!existed) ex.removeIfNothingWritten();
                throw e;
            }
        }
        System.out.println(ex);
        if (ex.hasPlan()) {
            var p = ex.plan();
            System.out.println("plan: model " + p.model() + ", tokens " + p.tokens() + ", stop fraction " + p.stopFraction() + ", device " + p.device() + ", created " + p.created());
        }
        System.out.println(ex.statusText());
        return 0;
    }

    /** The plan keeps its token counts ascending; counts given in another order are said to be sorted, not silently reordered. */
    private void saySorted(gluelab.workflow.experiment.ExperimentPlan plan) {
        if (!Tokens.parse(tokens).equals(plan.tokens())) System.err.println("token counts " + tokens + " sorted: the plan keeps them ascending, " + plan.tokens());
    }

    /** Step 00 with the analyst's model as the subject: checked in the torch harness, then planned. */
    private Integer planModel(Path base) {
        if (tokens == null) throw new IllegalArgumentException("--model-file needs --tokens, e.g. --tokens 2k,8k,32k");
        if (inputs == null) throw new IllegalArgumentException("--model-file needs --inputs, e.g. --inputs 'x:T,D:bf16'");
        if (inputs.isBlank()) throw new IllegalArgumentException("--inputs is empty: give forward's inputs as NAME:DIMS:DTYPE, e.g. --inputs 'x:T,D:bf16'");
        var entry = gluelab.torch.ModelEntry.parse(modelFile);
        var subject = new gluelab.workflow.experiment.ModelSubject(entry.file().toString(), entry.function(), inputs, blocks, regions);
        var spec = gluelab.model.SpecRegistry.load(gluelab.files.Locations.specFolders()).get(model == null ? gluelab.bench.BenchPlan.DEFAULT_MODEL : model);
        boolean existed = java.nio.file.Files.isDirectory(base.resolve(name));
        ExperimentFolder.checkName(name);
        ExperimentFolder ex = ExperimentFolder.open(name, base);
        // The lock before the torch side: a step running on the experiment refuses this at once, not after torch has started.
        try (var running = ex.running(gluelab.workflow.experiment.Step.PLAN); var device = deviceOptions.open();
             var torch = gluelab.torch.TorchSide.start(gluelab.torch.PythonFinder.standard().find(python, gluelab.torch.PythonSource.FLAG), device)) {
            var planned = ModelPlan.write(ex, torch.bridge(), spec, subject, Tokens.parse(tokens), stop, device.id(),
                    gluelab.torch.StepLimits.check(timeout));
            saySorted(planned.plan());
            System.out.println(ex);
            System.out.println("model check: " + planned.check().describe());
            System.out.println(ex.statusText());
        } catch (RuntimeException e) {
            if (!existed) ex.removeIfNothingWritten();
            throw e;
        }
        return 0;
    }

    /** Where else the experiment may be: a kernel started outside any repository keeps them beside its notebooks. */
    static String elsewhere(String name) {
        Path nb = Path.of("notebooks").resolve(ExperimentFolder.DEFAULT_ROOT).resolve(name);
        if (java.nio.file.Files.isDirectory(nb)) return "; there is one in " + nb
                + " (--experiments-root notebooks/" + ExperimentFolder.DEFAULT_ROOT + ", or set " + ExperimentFolder.HOME_ENV + " for both)";
        return "; set " + ExperimentFolder.HOME_ENV + " to keep the CLI's and the notebooks' experiments in one place";
    }
}
