package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.device.Device;
import gluelab.ops.Variant;
import gluelab.files.Json;
import gluelab.files.Locations;
import gluelab.lab.Gluelab;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.progress.Progress;
import picocli.CommandLine.*;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "bench", mixinStandardHelpOptions = true, description = "Time ops against their floor: eager and fused screened together.")
public final class BenchCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "OP", description = "ops to time; see 'gluelab ops'")
    List<String> ops;

    @Mixin DeviceOptions deviceOptions;

    @Mixin TorchOptions torchOptions;

    @Mixin ChartOptions chartOptions = new ChartOptions();

    @Option(names = "--model", defaultValue = BenchPlan.DEFAULT_MODEL, description = "model spec (default: ${DEFAULT-VALUE})")
    String model;

    @Option(names = "--tokens", defaultValue = "2048,4096", description = "token counts (default: ${DEFAULT-VALUE}); 4k = 4096")
    String tokens;

    @Option(names = "--variants", defaultValue = "eager,fused", description = "variants: eager, fused, region (the op as a generated expression region, where it has one) (default: ${DEFAULT-VALUE})")
    String variants;

    @Option(names = "--passes", defaultValue = "fwd", description = "fwd, bwd or fwd,bwd (default: ${DEFAULT-VALUE})")
    String passes;

    @Option(names = "--dtype", defaultValue = "bf16", description = "activation dtype: bf16, fp16, fp32 (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--mode", defaultValue = "cold", description = "cold (cache flushed per sample) or hot (back to back) (default: ${DEFAULT-VALUE})")
    String mode;

    @Mixin StopOptions stopOptions = new StopOptions();

    @Mixin PlacementOptions placementOptions = new PlacementOptions();

    @Option(names = "--check", defaultValue = "16", description = "tokens for the correctness check vs fp64; 0 skips (default: ${DEFAULT-VALUE})")
    long check;

    @Option(names = "--json", description = "print rows as JSON on stdout (progress stays on stderr)")
    boolean json;

    @Option(names = "--no-tune", description = "use the cached or default kernel configs; without it, fused kernels not yet tuned for these shapes are tuned first")
    boolean noTune;

    /** The plan these options describe, every option checked (the notebook's %bench magic parses the same options). */
    public BenchPlan plan(SpecRegistry specs) {
        return placementOptions.applyTo(stopOptions.applyTo(BenchPlan.builder(specs).ops(ops).model(model).tokens(tokens).variants(variants)
                .passes(passes).dtype(dtype).mode(mode))).check(check).build();
    }

    /** Those of --with and --chart that were given: options only `gluelab bench` acts on, which the %bench magic refuses rather than ignore. */
    public List<String> cliOnlyOptions() {
        List<String> given = new java.util.ArrayList<>();
        if (torchOptions != null && torchOptions.with != null) given.add("--with");
        if (chartOptions.chart != null) given.add("--chart");
        return given;
    }

    /** The --device option as given (auto when absent). */
    public String device() { return deviceOptions == null ? "auto" : deviceOptions.device; }

    @Override public Integer call() {
        SpecRegistry specs = SpecRegistry.load(Locations.specFolders());
        BenchPlan plan = plan(specs);
        chartOptions.check();
        try (Gluelab lab = Gluelab.open(deviceOptions.device, specs)) {
            plan.checkRuns(lab.device());
            try (var torch = torchOptions.start(lab.device())) {
                Progress progress = new ConsoleProgress(System.err);
                lab.progress(progress);
                Device device = lab.device();
                if (!noTune && device.tunable().isPresent()) {
                    // The hand kernels (fused) and the generated regions (region) that the plan measures; cached picks cost nothing.
                    gluelab.tune.Tuning.run(device, plan.spec(), plan.ops(), plan.passes(), plan.tokens(), plan.dtype(), plan.variants(),
                            gluelab.tune.Tuner.Options.defaults(), progress);
                }
                BenchResult result = torchOptions.addRows(torch, plan, lab.calibration(), lab.run(plan, row -> {}), progress, json);
                // With --json, stdout is the rows alone.
                chartOptions.draw(result.rows(), json ? System.err : System.out);
                if (json) {
                    System.out.println(Json.write(result.rows()));
                } else {
                    System.out.println("device: " + lab.device().id() + " (" + lab.facts().name() + "), floor bandwidth "
                            + new gluelab.units.Bandwidth(lab.calibration().bandwidth()));
                    System.out.println(result.table().printAll());
                    if (!result.checks().isEmpty()) System.out.println(result.correctness().printAll());
                }
            }
        }
        return 0;
    }
}
