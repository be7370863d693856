package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchSession;
import gluelab.chart.Charts;
import gluelab.device.Device;
import gluelab.files.Locations;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.progress.Progress;
import gluelab.files.Json;
import gluelab.chart.TuneChart;
import gluelab.tune.TuneResult;
import gluelab.tune.Tuner;
import gluelab.tune.Tuning;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "tune", mixinStandardHelpOptions = true,
        description = "Autotune the fused kernels' (and with --variants region the generated regions') launch configurations: compile every config in parallel, time them, check the pick vs fp64, cache it.")
public final class TuneCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "OP", description = "ops to tune; see 'gluelab ops'")
    List<String> ops;

    @Mixin DeviceOptions deviceOptions;

    @Mixin PlanOptions planOptions = new PlanOptions();

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

    /** What to tune, parsed and checked (as bench checks its options) before any device is opened. */
    private record Plan(BenchPlan what, Tuner.Options options) {}

    private Plan plan() {
        BenchPlan what = planOptions.builder(SpecRegistry.load(Locations.specFolders()), PlanOptions.Defaults.TUNE).ops(ops).tune(true).build();
        for (gluelab.ops.Variant v : what.variants()) {
            if (v != gluelab.ops.Variant.FUSED && v != gluelab.ops.Variant.REGION) {
                throw new IllegalArgumentException("--variants " + planOptions.variants + ": only fused and region have launch configurations to tune, not " + v.id());
            }
        }
        Tuner.Options options = Tuner.Options.defaults().withSerial(serial).withForce(force || serial).withShipped(false);
        if (threads != null) options = options.withThreads(threads);
        return new Plan(what, options);
    }

    /** Runs the tunings these options describe on {@code device} (the %tune magic calls this too). */
    public List<TuneResult> tune(Device device, Progress progress) { return tune(plan(), device, progress); }

    private static List<TuneResult> tune(Plan p, Device device, Progress progress) { return BenchSession.tune(device, p.what(), p.options(), progress); }

    @Override public Integer call() {
        Plan plan = plan();
        PathOptions.folder(charts, "--charts");
        // The compile workers start while the device opens (the tuning would otherwise wait for them).
        if (!plan.options().serial()) gluelab.device.Devices.expectTuning(plan.options().threads());
        try (Device device = deviceOptions.open()) {
            Progress progress = json ? Progress.NONE : new ConsoleProgress(System.err);
            long t0 = System.nanoTime();
            List<TuneResult> results = tune(plan, device, progress);
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
                    for (TuneResult r : results) Charts.save(TuneChart.landscape(r, device.facts().name()), charts.resolve("tune-" + r.op() + "-" + r.pass() + "-" + r.tokens()));
                } catch (RuntimeException | Error e) {
                    if (e instanceof VirtualMachineError v) throw v;
                    System.err.println("gluelab tune: charts not written to " + charts + ": " + e.getMessage());
                }
            }
            // Saving the picks is what tune is for: a cache that could not take them (full, read-only) fails the command.
            var notSaved = device.tunable().flatMap(t -> t.picks().notSaved());
            if (notSaved.isPresent()) throw new IllegalStateException("tuned picks not saved: " + notSaved.get());
        }
        return 0;
    }
}
