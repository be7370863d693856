package gluelab.cli;

import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
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
        var table = DataTable.builder("floors of " + model, Columns.OP, Columns.PASS, Columns.TOKENS, Columns.FLOOR_BYTES, Columns.IDEAL, Columns.BOUND);
        for (long t : tok) {
            for (GlueOp op : list) {
                for (Pass p : Pass.values()) {
                    if (!op.supports(p)) continue;
                    Floor f = Floor.of(op, op.shape(spec, t, DType.BF16), p, cal);
                    table.row(op.name(), p.id(), t, f.bytes(), f.idealSeconds() * 1e6, f.bound());
                }
            }
        }
        System.out.println(TableFormat.tablesaw(table.build()).printAll());
        return 0;
    }
}
