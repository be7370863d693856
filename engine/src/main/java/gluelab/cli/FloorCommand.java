package gluelab.cli;

import gluelab.bench.Tokens;
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

    @Option(names = "--model", defaultValue = "llama-3-8b") String model;

    @Option(names = "--tokens", defaultValue = "2048,4096") String tokens;

    @Option(names = "--bandwidth", description = "GB/s to divide by instead of the device's calibration") Double bandwidth;

    @Override public Integer call() {
        var spec = SpecRegistry.load(Locations.specFolders()).get(model);
        List<GlueOp> list = ops.stream().map(Catalogue::get).toList();
        List<Long> tok = Tokens.parse(tokens);
        Calibration cal;
        if (bandwidth != null) {
            if (!(bandwidth > 0)) throw new IllegalArgumentException("--bandwidth must be > 0 GB/s");
            cal = Calibration.given("given", bandwidth * 1e9, 0);
        } else {
            try (Device device = deviceOptions.open()) {
                cal = new Calibrator(device, Locations.calibrationCache()).calibrate(false);
            }
        }
        System.out.printf("%-20s %-4s %8s %14s %12s %10s%n", "op", "pass", "tokens", "bytes", "ideal_us", "bound");
        for (long t : tok) {
            for (GlueOp op : list) {
                for (Pass p : Pass.values()) {
                    if (!op.supports(p)) continue;
                    Floor f = Floor.of(op, op.shape(spec, t, DType.BF16), p, cal);
                    System.out.printf("%-20s %-4s %8d %14d %12.1f %10s%n", op.name(), p.id(), t, f.bytes(), f.idealSeconds() * 1e6, f.bound());
                }
            }
        }
        return 0;
    }
}
