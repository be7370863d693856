package gluelab.cli;

import gluelab.bench.Tokens;
import gluelab.chart.Charts;
import gluelab.device.Device;
import gluelab.files.Locations;
import gluelab.model.ModelSpec;
import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.progress.ConsoleProgress;
import gluelab.progress.Progress;
import gluelab.files.Json;
import gluelab.tensor.DType;
import gluelab.tune.TuneChart;
import gluelab.tune.TuneResult;
import gluelab.tune.Tuner;
import gluelab.tune.Tuning;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "tune", mixinStandardHelpOptions = true,
        description = "Autotune the fused kernels' launch configurations: compile every config in parallel, time them, check the pick vs fp64, cache it.")
public final class TuneCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "OP", description = "ops to tune; see 'gluelab ops'")
    List<String> ops;

    @Mixin DeviceOptions deviceOptions;

    @Option(names = "--model", defaultValue = "llama-3-8b", description = "model spec (default: ${DEFAULT-VALUE})")
    String model;

    @Option(names = "--tokens", defaultValue = "8192,32768", description = "token counts (default: ${DEFAULT-VALUE}); 4k = 4096")
    String tokens;

    @Option(names = "--passes", defaultValue = "fwd,bwd", description = "fwd, bwd or fwd,bwd (default: ${DEFAULT-VALUE})")
    String passes;

    @Option(names = "--dtype", defaultValue = "bf16", description = "activation dtype (default: ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--serial", description = "compile and time each config before the next compiles (the slow path, for comparison)")
    boolean serial;

    @Option(names = "--threads", description = "compile threads (default: the machine's cores)")
    Integer threads;

    @Option(names = "--force", description = "tune again even where a pick is cached")
    boolean force;

    @Option(names = "--charts", paramLabel = "DIR", description = "write the tuning landscape of each op (time per config, pick marked) to DIR")
    Path charts;

    @Option(names = "--json", description = "print the tuning records as JSON")
    boolean json;

    /** The --device option as given (auto when absent): the %tune magic switches the session's device by it. */
    public String device() { return deviceOptions == null ? "auto" : deviceOptions.device; }

    /** What to tune, parsed and checked before any device is opened. */
    private record Plan(ModelSpec spec, List<GlueOp> ops, List<Pass> passes, List<Long> tokens, DType dtype, Tuner.Options options) {}

    private Plan plan() {
        var spec = SpecRegistry.load(Locations.specFolders()).get(model);
        var opList = ops.stream().map(Catalogue::get).toList();
        List<Long> tok = Tokens.parse(tokens);
        List<Pass> ps = Arrays.stream(passes.split(",")).map(Pass::parse).toList();
        Tuner.Options options = Tuner.Options.defaults().withSerial(serial).withForce(force || serial);
        if (threads != null) options = options.withThreads(threads);
        return new Plan(spec, opList, ps, tok, DType.parse(dtype), options);
    }

    /** Runs the tunings these options describe on {@code device} (the %tune magic calls this too). */
    public List<TuneResult> tune(Device device, Progress progress) {
        Plan p = plan();
        return Tuning.run(device, p.spec(), p.ops(), p.passes(), p.tokens(), p.dtype(), p.options(), progress);
    }

    @Override public Integer call() {
        plan();
        try (Device device = deviceOptions.open()) {
            Progress progress = json ? Progress.NONE : new ConsoleProgress(System.err);
            long t0 = System.nanoTime();
            List<TuneResult> results = tune(device, progress);
            double wall = (System.nanoTime() - t0) * 1e-9;
            if (json) System.out.println(Json.write(results));
            else {
                System.out.println("device: " + device.id() + " (" + device.facts().name() + "), picks in " + Locations.cacheDir().resolve("tune"));
                System.out.print(Tuning.table(results));
                System.out.printf("total wall %.2f s%n", wall);
            }
            if (charts != null) {
                // Charts come last: the picks are stored and the table printed even where charts cannot be drawn (a host without fonts).
                try {
                    for (TuneResult r : results) Charts.save(TuneChart.landscape(r), charts.resolve("tune-" + r.op() + "-" + r.pass() + "-" + r.tokens()));
                } catch (RuntimeException | Error e) {
                    if (e instanceof VirtualMachineError v) throw v;
                    System.err.println("gluelab tune: charts not written to " + charts + ": " + e.getMessage());
                }
            }
        }
        return 0;
    }
}
