package gluelab.cli;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.files.Json;
import gluelab.files.Locations;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.tensor.DType;
import gluelab.torch.ModelFix;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.model.ModelCheckStep;
import picocli.CommandLine.*;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Step 08: every output and every parameter and input gradient of each fix vs the model as written and vs an fp64 copy of it "
                + "(same weights and inputs), in bf16 and fp32: rel L2 with its limit, max ulp, verdict; a step that changes when run twice fails. "
                + "Adds to step 08: a fix checked again replaces its earlier rows, other fixes' rows are kept (the command says which). "
                + "Exit 1 when any row fails.")
final class ModelCheckCommand implements Callable<Integer> {
    @Mixin ModelCommand.Common common;

    @Option(names = "--fix", paramLabel = "NAME=SPEC",
            description = "a fix of your model: NAME=regions:model.F,...|swap:model.F=FILE.py:FN|options:model.F:KEY=V,...|autograd:model.F=FILE.py:Class.apply, "
                    + "parts joined with '+' (repeatable; none: the fixes step 05 tried)")
    List<String> fixes = new java.util.ArrayList<>();

    @Option(names = "--dtypes", split = ",", defaultValue = "bf16,fp32", description = "dtypes to check in (default: ${DEFAULT-VALUE}; fp64 is the reference)")
    List<String> dtypes;

    @Option(names = "--tokens", description = "token count to check at (default: the plan's smallest)") Long tokens;

    @Mixin ModelCommand.StepLimitOption limit;

    @Override public Integer call() {
        var limits = limit.limits();
        // 0 stands for the plan's smallest count inside ModelCheckStep: given here, it (or -5) silently checked at another count.
        if (tokens != null && tokens <= 0) throw new IllegalArgumentException("--tokens must be a token count > 0, got " + tokens);
        List<ModelFix> given = fixes.stream().map(ModelFix::parse).toList();
        List<DType> ds = dtypes.stream().map(DType::parse).toList();
        gluelab.torch.ModelCorrectness.checkDtypes(ds);
        ExperimentFolder ex = common.runnable();
        List<ModelFix> parsed = given.isEmpty() ? gluelab.workflow.model.ModelFixStep.load(ex).fixes() : given;
        var plan = ex.plan();
        var spec = SpecRegistry.load(Locations.specFolders()).get(plan.model());
        try (var running = ex.running(gluelab.workflow.experiment.Step.CORRECTNESS); var stop = ModelStepStop.install(ex, gluelab.workflow.experiment.Step.CORRECTNESS, () -> gluelab.workflow.model.KeptSoFar.NOTHING);
             Device device = Devices.open(plan.device()); var torch = common.start(device)) {
            var checked = ModelCheckStep.check(ex, torch.bridge(), spec, parsed, ds, tokens == null ? 0 : tokens, limits, new ConsoleProgress(System.err));
            var r = checked.now();
            System.out.println(common.json ? Json.write(r) : gluelab.table.TableFormat.text(r.table()) + "\n" + r.summary() + "\n" + checked.merge());
            if (common.json) System.err.println(checked.merge());
            if (ModelCommand.rowsStatus(checked.nothingChecked(), ex, gluelab.workflow.experiment.Step.CORRECTNESS, "checked") != 0) return 1;
            return r.passed() ? 0 : 1;
        }
    }
}
