package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.bench.BenchRunner;
import gluelab.bench.Tokens;
import gluelab.calibrate.Calibrator;
import gluelab.device.Device;
import gluelab.lab.Locations;
import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.ConsoleProgress;
import gluelab.progress.Progress;
import gluelab.record.Json;
import gluelab.tensor.DType;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import picocli.CommandLine.*;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "bench", mixinStandardHelpOptions = true, description = "Time ops against their floor: eager and fused screened together.")
public final class BenchCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "OP", description = "ops to time; see 'gluelab ops'")
    List<String> ops;

    @Mixin DeviceOptions deviceOptions;

    @Mixin TorchOptions torchOptions;

    @Option(names = "--model", defaultValue = "llama-3-8b", description = "model spec (default: ${DEFAULT-VALUE})")
    String model;

    @Option(names = "--tokens", defaultValue = "2048,4096", description = "token counts (default: ${DEFAULT-VALUE}); 4k = 4096")
    String tokens;

    @Option(names = "--variants", defaultValue = "eager,fused", description = "variants (default: ${DEFAULT-VALUE})")
    String variants;

    @Option(names = "--passes", defaultValue = "fwd", description = "fwd, bwd or fwd,bwd (default: ${DEFAULT-VALUE})")
    String passes;

    @Option(names = "--dtype", defaultValue = "bf16", description = "activation dtype: bf16, fp16, fp32 (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--mode", defaultValue = "cold", description = "cold (cache flushed per sample) or hot (back to back) (default: ${DEFAULT-VALUE})")
    String mode;

    @Option(names = "--timeout", defaultValue = "15", description = "seconds per measurement at most (default: ${DEFAULT-VALUE})")
    double timeout;

    @Option(names = "--min-time", defaultValue = "0.5", description = "seconds of samples at least (default: ${DEFAULT-VALUE})")
    double minTime;

    @Option(names = "--check", defaultValue = "16", description = "tokens for the correctness check vs fp64; 0 skips (default: ${DEFAULT-VALUE})")
    long check;

    @Option(names = "--json", description = "print rows as JSON")
    boolean json;

    @Option(names = "--no-tune", description = "use the cached or default kernel configs; without it, fused kernels not yet tuned for these shapes are tuned first")
    boolean noTune;

    /** The plan these options describe (the notebook's %bench magic parses the same options). */
    public BenchPlan plan() {
        List<GlueOp> opList = ops.stream().map(Catalogue::get).toList();
        var spec = SpecRegistry.load(Locations.specFolders()).get(model);
        List<Long> tok = Tokens.parse(tokens);
        List<Variant> vars = Arrays.stream(variants.split(",")).map(Variant::parse).toList();
        List<Pass> ps = Arrays.stream(passes.split(",")).map(Pass::parse).toList();
        Mode m = Mode.valueOf(mode.trim().toUpperCase());
        if (check < 0) throw new IllegalArgumentException("--check must be >= 0");
        StopRule stop = StopRule.nvbench().withTimeout(timeout).withMinSeconds(minTime);
        return new BenchPlan(spec, opList, tok, vars, ps, DType.parse(dtype), new TimingConfig(m, 0.2, stop, 10), check);
    }

    /** The --device option as given (auto when absent). */
    public String device() { return deviceOptions == null ? "auto" : deviceOptions.device; }

    @Override public Integer call() {
        BenchPlan plan = plan();
        try (Device device = deviceOptions.open(); var torch = torchOptions.start(device)) {
            plan.checkFits(device);
            var cal = new Calibrator(device, Locations.calibrationCache()).calibrate(false);
            Progress progress = json ? Progress.NONE : new ConsoleProgress(System.err);
            if (!noTune && device.tunable().isPresent() && plan.variants().contains(Variant.FUSED)) {
                gluelab.tune.Tuning.run(device, plan.spec(), plan.ops(), plan.passes(), plan.tokens(), plan.dtype(), gluelab.tune.Tuner.Options.defaults(), progress);
            }
            BenchResult result = new BenchRunner(device, cal).run(plan, progress, row -> {});
            result = torchOptions.addRows(torch, plan, cal, result, progress, json);
            if (json) {
                System.out.println(Json.write(result.rows()));
            } else {
                System.out.println("device: " + device.id() + " (" + device.facts().name() + "), floor bandwidth " + String.format("%.1f GB/s", cal.bandwidth() / 1e9));
                System.out.println(result.table().printAll());
                if (!result.checks().isEmpty()) System.out.println(result.correctness().printAll());
            }
        }
        return 0;
    }
}
