package gluelab.cli;

import gluelab.bench.Tokens;
import gluelab.chart.Charts;
import gluelab.device.Device;
import gluelab.lab.Locations;
import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.progress.ConsoleProgress;
import gluelab.progress.Progress;
import gluelab.record.Json;
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

    @Override public Integer call() {
        var spec = SpecRegistry.load(Locations.specFolders()).get(model);
        var opList = ops.stream().map(Catalogue::get).toList();
        List<Long> tok = Tokens.parse(tokens);
        List<Pass> ps = Arrays.stream(passes.split(",")).map(Pass::parse).toList();
        DType dt = DType.parse(dtype);
        Tuner.Options options = Tuner.Options.defaults().withSerial(serial).withForce(force || serial);
        if (threads != null) options = options.withThreads(threads);
        try (Device device = deviceOptions.open()) {
            Progress progress = json ? Progress.NONE : new ConsoleProgress(System.err);
            long t0 = System.nanoTime();
            List<TuneResult> results = Tuning.run(device, spec, opList, ps, tok, dt, options, progress);
            double wall = (System.nanoTime() - t0) * 1e-9;
            if (charts != null) {
                for (TuneResult r : results) Charts.save(TuneChart.landscape(r), charts.resolve("tune-" + r.op() + "-" + r.pass() + "-" + r.tokens()));
            }
            if (json) System.out.println(Json.write(results));
            else {
                System.out.println("device: " + device.id() + " (" + device.facts().name() + "), picks in " + Locations.cacheDir().resolve("tune"));
                System.out.print(Tuning.table(results));
                System.out.printf("total wall %.2f s%n", wall);
            }
        }
        return 0;
    }
}
