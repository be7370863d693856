package gluelab.cli;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.files.Json;
import gluelab.files.Locations;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.torch.ModelGraphs;
import gluelab.torch.ModelTree;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.model.ModelGraphsStep;
import picocli.CommandLine.*;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "graphs", mixinStandardHelpOptions = true,
        description = "Step 06: the graphs dynamo compiles for each region and repeated block of your model, per call site x token count x grad mode "
                + "(a training pass and a torch.no_grad pass), from dynamo's counters and log, against the recompile limit.")
final class ModelGraphsCommand implements Callable<Integer> {
    @Mixin ModelCommand.Common common;

    @Option(names = "--trees", split = ",", description = "trees with regions of their own to count: regions, per-block (default: the plan's regions when it names any, and per-block)")
    List<String> trees;

    @Option(names = "--dynamic", description = "torch.compile's dynamic: true or false (false: a graph per shape, as CUDA-graph runs compile; default: torch's automatic dynamic shapes)")
    Boolean dynamic;

    @Option(names = "--backend", defaultValue = "inductor", description = "torch.compile backend (default: ${DEFAULT-VALUE})") String backend;

    @Option(names = "--without-no-grad", description = "leave out the torch.no_grad pass (a model never run without grad)") boolean withoutNoGrad;

    @Option(names = "--recompile-limit", defaultValue = "0", description = "torch._dynamo.config.recompile_limit for the run (default: torch's own, 8)") int limit;

    @Mixin ModelCommand.StepLimitOption stepLimit;

    @Override public Integer call() {
        var limits = stepLimit.limits();
        List<ModelTree> given = trees == null ? null : trees.stream().map(ModelTree::parse).toList();
        // bad input named before the experiment is read (the plan's trees stand in for none given)
        new ModelGraphs.Options(given == null ? List.of(ModelTree.PER_BLOCK) : given, dynamic, backend, !withoutNoGrad, limit);
        ExperimentFolder ex = common.runnable();
        var plan = ex.plan();
        var spec = SpecRegistry.load(Locations.specFolders()).get(plan.model());
        var options = new ModelGraphs.Options(given == null ? ModelGraphsStep.trees(plan.modelSubject()) : given, dynamic, backend, !withoutNoGrad, limit);
        try (var running = ex.running(gluelab.workflow.experiment.Step.GRAPH_BUDGET); var stop = ModelStepStop.install(ex, gluelab.workflow.experiment.Step.GRAPH_BUDGET, () -> gluelab.workflow.model.KeptSoFar.NOTHING);
             Device device = Devices.open(plan.device()); var torch = common.start(device)) {
            var r = ModelGraphsStep.run(ex, torch.bridge(), spec, options, limits, new ConsoleProgress(System.err));
            System.out.println(common.json ? Json.write(r.graphs()) : r.text());
            return r.budget().regions().stream().anyMatch(g -> g.graphs() > g.limit()) || r.graphs().trees().stream().anyMatch(ModelGraphs.TreeGraphs::failed) ? 1 : 0;
        }
    }
}
