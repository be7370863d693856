package gluelab.cli;

import gluelab.tune.Tuning;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.files.Json;
import gluelab.files.Locations;
import gluelab.lab.Gluelab;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
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

    @Mixin PlanOptions planOptions = new PlanOptions();

    @Option(names = "--mode", defaultValue = "cold", description = "cold (cache flushed per sample) or hot (back to back) (default: ${DEFAULT-VALUE})")
    String mode;

    @Mixin StopOptions stopOptions = new StopOptions();

    @Mixin PlacementOptions placementOptions = new PlacementOptions();

    @Option(names = "--check", defaultValue = "16", description = "tokens for the correctness check vs fp64; 0 skips (default: ${DEFAULT-VALUE})")
    long check;

    @Option(names = "--json", description = "print rows as JSON on stdout (progress stays on stderr)")
    boolean json;

    @Option(names = "--no-tune", description = "use the cached or default kernel configs; without it, fused kernels not yet tuned for these shapes are tuned first on a GPU (the plan's tune decision)")
    boolean noTune;

    @Option(names = "--tune", description = "tune first also where the device does not by default (the CPU)")
    boolean tune;

    /** Whether {@code --tune} asked to tune also where the device does not by default; the runner takes it with the plan. */
    public boolean tuneEveryDevice() { return tune; }

    /** The plan these options describe, every option checked (the notebook's %bench magic parses the same options). */
    public BenchPlan plan(SpecRegistry specs) {
        return placementOptions.applyTo(stopOptions.applyTo(planOptions.builder(specs, PlanOptions.Defaults.BENCH).ops(ops).mode(mode)))
                .check(check).tune(Tuning.benchTunes(tune, noTune)).build();
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
                lab.progress(new ConsoleProgress(System.err));
                var session = lab.session();
                BenchResult result;
                try (var signals = StopSignals.install(signal -> printPartial(session.measuredSoFar(), signal))) {
                    result = session.tuneEveryDevice(tune).peer(torch == null ? null : (p, cal, own, progress) -> torchOptions.addRows(torch, p, cal, own, progress, json))
                            .run(plan);
                }
                if (json) {
                    System.out.println(Json.write(result.rows()));
                } else {
                    System.out.println("device: " + lab.device().id() + " (" + lab.facts().name() + "), floor bandwidth "
                            + new gluelab.units.Bandwidth(lab.calibration().bandwidth()));
                    System.out.println(result.table().printAll());
                    if (result.hasRegionBesideFused()) System.out.println(result.bestKnown().printAll());
                    if (!result.skipped().isEmpty()) System.out.println(result.notMeasured().printAll());
                    if (!result.checks().isEmpty()) System.out.println(result.correctness().printAll());
                }
                // After the rows, so a chart that cannot be written loses none of them; with --json, stdout is the rows alone.
                chartOptions.draw(result.rows(), lab.facts().name(), json ? System.err : System.out);
            }
        }
        return 0;
    }

    /** A stopped bench still shows what it measured: the rows so far (as JSON with --json), and a STOPPED line. */
    private void printPartial(java.util.List<gluelab.record.Row> rows, String signal) {
        System.err.println();
        System.err.println("STOPPED by " + signal + " after " + rows.size() + " measurement(s)" + (rows.isEmpty() ? "" : "; the rows measured so far:"));
        if (rows.isEmpty()) return;
        if (json) System.out.println(Json.write(rows));
        else System.out.println(gluelab.report.Tables.results(rows).printAll());
    }
}
