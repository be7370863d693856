package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.devlog.Devlog;
import gluelab.files.Locations;
import gluelab.lab.Gluelab;
import gluelab.model.SpecRegistry;
import gluelab.progress.ConsoleProgress;
import gluelab.record.RecordStore;
import gluelab.bench.BenchSession;
import gluelab.record.RunKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "The main job: calibrate, baseline the whole catalogue (eager and fused, fwd and bwd) at four token counts, rank, and write out/<run>/ with the record, devlog, findings.md and charts.")
public final class DemoCommand implements Callable<Integer> {
    @Mixin DeviceOptions deviceOptions;

    @Mixin StopOptions stopOptions = new StopOptions();

    @Mixin PlacementOptions placementOptions = new PlacementOptions();

    @Mixin PlanOptions planOptions = new PlanOptions();

    @Option(names = "--out", defaultValue = "out", description = "output folder (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--devlog", description = "devlog file (default: <out>/devlog.md)")
    Path devlog;

    @Option(names = "--recalibrate", description = "measure bandwidth again instead of using the cache")
    boolean recalibrate;

    @Option(names = "--stop-fraction", defaultValue = "0.01", description = "stop rule: gaps under this fraction of the layer are not worth fixing (default: ${DEFAULT-VALUE})")
    double stopFraction;

    @Override public Integer call() {
        OptionValues.stopFraction(stopFraction);
        stopOptions.check();
        placementOptions.check();
        PathOptions.folder(out, "--out");
        PathOptions.fileInExistingFolder(devlog, "--devlog");
        SpecRegistry specs = SpecRegistry.load(Locations.specFolders());
        // Checked before the device opens; the demo's token counts follow the device unless given.
        planOptions.applyTo(BenchPlan.demo(specs), PlanOptions.Defaults.DEMO);
        try (Gluelab lab = Gluelab.open(deviceOptions.device, specs)) {
            // A device with graph replay is a GPU: it gets the larger token counts.
            BenchPlan.Builder demo = planOptions.applyTo(BenchPlan.demo(specs), PlanOptions.Defaults.DEMO);
            if (!planOptions.tokensGiven()) demo.tokens(lab.device().capabilities().graphReplay() ? "2k,4k,16k,32k" : "512,1024,2048,4096");
            BenchPlan plan = placementOptions.applyTo(stopOptions.applyTo(demo)).build();
            plan.checkRuns(lab.device());
            System.out.println("device: " + lab.device().id() + " (" + lab.facts().name() + ", " + lab.facts().cores() + " cores)");
            if (recalibrate) lab.calibrate();
            System.out.println("calibration: " + lab.calibration().describe());
            Devlog log = new Devlog(devlog != null ? devlog : out.resolve("devlog.md"));
            lab.progress(new ConsoleProgress(System.err));
            var session = lab.session().devlog(log);
            BenchSession.Outcome outcome;
            try (var signals = StopSignals.install(signal -> keepPartial(session, signal))) {
                outcome = session.record(plan, new BenchSession.Recording(Gluelab.publisher(new RecordStore(out)), RunKind.DEMO, stopFraction));
            }
            System.out.println();
            System.out.println(outcome.ranking().table().printAll());
            System.out.println("run: " + outcome.dir());
            System.out.println("findings: " + outcome.dir().resolve("findings.md"));
            int noisy = gluelab.report.Tables.noisy(outcome.result().rows()).size();
            if (noisy > 0) {
                System.out.println("noisy: " + noisy + " of " + outcome.result().rows().size() + " rows missed the noise bound or stopped on the timeout"
                        + " (listed in findings.md, flagged in the tables); quote them only with that caveat, or measure again on a quieter machine"
                        + " or with a longer --timeout");
            }
            System.out.println("devlog: " + log.file());
            return 0;
        }
    }

    /** A stopped demo keeps what it measured as a partial record and says where. */
    private static void keepPartial(BenchSession session, String signal) {
        Path kept = session.keepPartial("stopped by " + signal);
        System.err.println();
        System.err.println(kept == null ? "STOPPED by " + signal + " before any measurement finished; nothing to keep"
                : "STOPPED by " + signal + ": the " + session.measuredSoFar().size() + " measurement(s) so far are kept in " + kept.resolve("record.json")
                + " (gluelab report " + kept.resolve("record.json") + ")");
    }
}
