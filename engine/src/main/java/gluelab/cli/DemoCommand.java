package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.bench.Tokens;
import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.device.Device;
import gluelab.devlog.Devlog;
import gluelab.lab.Experiment;
import gluelab.files.Locations;
import gluelab.lab.RunReport;
import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.ConsoleProgress;
import gluelab.record.RecordStore;
import gluelab.tensor.DType;
import gluelab.timing.TimingConfig;
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

    @Option(names = "--model", defaultValue = "llama-3-8b", description = "model spec (default: ${DEFAULT-VALUE}); see 'gluelab specs'")
    String model;

    @Option(names = "--tokens", description = "token counts (default: 512,1024,2048,4096 on the CPU; 2k,4k,16k,32k on a GPU)")
    String tokens;

    @Option(names = "--out", defaultValue = "out", description = "output folder (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--devlog", description = "devlog file (default: <out>/devlog.md)")
    Path devlog;

    @Option(names = "--recalibrate", description = "measure bandwidth again instead of using the cache")
    boolean recalibrate;

    @Option(names = "--stop-fraction", defaultValue = "0.01", description = "stop rule: gaps under this fraction of the layer are not worth fixing (default: ${DEFAULT-VALUE})")
    double stopFraction;

    @Override public Integer call() {
        SpecRegistry specs = SpecRegistry.load(Locations.specFolders());
        var spec = specs.get(model);
        try (Device device = deviceOptions.open()) {
            List<Long> tok = Tokens.parse(tokens != null ? tokens : device.facts().kind().equals("cpu") ? "512,1024,2048,4096" : "2k,4k,16k,32k");
            BenchPlan plan = new BenchPlan(spec, Catalogue.all(), tok, List.of(Variant.EAGER, Variant.FUSED),
                    List.of(Pass.FORWARD, Pass.BACKWARD), DType.BF16, TimingConfig.quick(), 16);
            plan.checkFits(device);
            System.out.println("device: " + device.id() + " (" + device.facts().name() + ", " + device.facts().cores() + " cores)");
            Calibration cal = new Calibrator(device, Locations.calibrationCache()).calibrate(recalibrate);
            System.out.println("calibration: " + cal.describe());
            Devlog log = new Devlog(devlog != null ? devlog : out.resolve("devlog.md"));
            var outcome = Experiment.run("demo", plan, device, cal, new RecordStore(out), log, new ConsoleProgress(System.err), stopFraction);
            System.out.println();
            System.out.println(RunReport.rank(outcome.record()).table().printAll());
            System.out.println("run: " + outcome.dir());
            System.out.println("findings: " + outcome.dir().resolve("findings.md"));
            System.out.println("devlog: " + log.file());
            return 0;
        }
    }
}
