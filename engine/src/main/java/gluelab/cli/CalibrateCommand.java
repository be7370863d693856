package gluelab.cli;

import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.device.Device;
import gluelab.files.Locations;
import gluelab.files.Json;
import picocli.CommandLine.*;

import java.util.concurrent.Callable;

@Command(name = "calibrate", mixinStandardHelpOptions = true, description = "Measure copy and triad bandwidth (buffers >= 4x the last-level cache) and peak FLOP/s; cached per device.")
public final class CalibrateCommand implements Callable<Integer> {
    @Mixin DeviceOptions deviceOptions;

    @Option(names = "--json", description = "print as JSON") boolean json;

    @Option(names = "--cached", description = "use the cached calibration when there is one") boolean cached;

    @Option(names = "--accept-busy", description = "cache the calibration as the device's figure even when it reads as taken on a busy machine")
    boolean acceptBusy;

    @Override public Integer call() {
        try (Device device = deviceOptions.open()) {
            Calibration c = new Calibrator(device, Locations.calibrationCache()).calibrate(!cached, acceptBusy);
            if (json) System.out.println(Json.write(c));
            else {
                System.out.println(device.id() + " (" + device.facts().name() + "): " + c.describe());
                device.telemetry().forEach((k, v) -> { if (k.startsWith("compile.")) System.out.println("  " + v); });
            }
        }
        return 0;
    }
}
