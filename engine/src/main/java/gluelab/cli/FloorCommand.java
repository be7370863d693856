package gluelab.cli;

import gluelab.bench.BenchPlan;
import gluelab.bench.Tokens;
import gluelab.units.Bandwidth;
import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.device.Device;
import gluelab.floor.Floor;
import gluelab.files.Locations;
import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.tensor.DType;
import picocli.CommandLine.*;

import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "floor", mixinStandardHelpOptions = true, description = "Bytes, FLOPs and ideal time of ops (no measurement of the ops).")
public final class FloorCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "OP") List<String> ops;

    @Mixin DeviceOptions deviceOptions;

    @Option(names = "--model", defaultValue = BenchPlan.DEFAULT_MODEL, description = "model spec (default: ${DEFAULT-VALUE})") String model;

    @Option(names = "--tokens", defaultValue = "2048,4096", description = "token counts (default: ${DEFAULT-VALUE}); 4k = 4096") String tokens;

    @Option(names = "--bandwidth", converter = UnitNumbers.GbPerSecond.class, description = "GB/s to divide by instead of the device's calibration") Double bandwidth;

    @Override public Integer call() {
        var spec = SpecRegistry.load(Locations.specFolders()).get(model);
        List<GlueOp> list = ops.stream().map(Catalogue::parse).toList();
        List<Long> tok = Tokens.parse(tokens);
        Calibration cal;
        Bandwidth given = bandwidth == null ? null : Bandwidth.gbPerSecond(bandwidth, "--bandwidth");
        if (given != null) {
            cal = Calibration.given("given", given.bytesPerSecond(), 0);
        } else {
            try (Device device = deviceOptions.open()) {
                cal = new Calibrator(device, Locations.calibrationCache()).calibrate(false);
            }
        }
        // Ideal times are only as good as the bandwidth they divide by: say which one.
        System.out.println(given != null ? "bandwidth: " + bandwidth + " GB/s (--bandwidth)" : "calibration: " + cal.deviceName() + ", " + cal.describe());
        System.out.printf("%-20s %-4s %8s %14s %12s %10s%n", "op", "pass", "tokens", "bytes", "ideal_us", "bound");
        for (long t : tok) {
            for (GlueOp op : list) {
                for (Pass p : Pass.values()) {
                    if (!op.supports(p)) continue;
                    Floor f = Floor.of(op, op.shape(spec, t, DType.BF16), p, cal);
                    System.out.printf("%-20s %-4s %8d %14s %12.1f %10s%n", op.name(), p.id(), t, gluelab.units.Numbers.bytes(f.bytes()), f.idealSeconds() * 1e6, f.bound());
                }
            }
        }
        return 0;
    }
}
