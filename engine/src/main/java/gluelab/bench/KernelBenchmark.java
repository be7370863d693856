package gluelab.bench;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.timing.Measurement;
import gluelab.timing.TimedLaunch;
import gluelab.timing.TimingConfig;

import java.util.Optional;

/**
 * Any launch (an analyst's own kernel) timed against its floor like a catalogue op: the bytes
 * are given, or taken from the sizes of its buffer arguments. Like every measurement it gets a
 * CUDA-graph row where the device has graphs.
 */
public final class KernelBenchmark {
    /** The measurements with their floor. */
    public record Result(String name, Measurement measurement, Measurement graph, long bytes, double idealUs, double measuredUs,
                         double pctOfFloor, double achievedGBs) {
        /** The graph replay's median per launch, in microseconds, if there is a graph row. */
        public Optional<Double> graphUs() { return Optional.ofNullable(graph).map(Measurement::medianMicros); }
    }

    private KernelBenchmark() {}

    public static Result run(Device device, Calibration cal, TimedLaunch.Subject s, TimingConfig timing) {
        return run(device, cal, s, s.name(), s.bufferBytes(), timing);
    }

    public static Result run(Device device, Calibration cal, Launch launch, String name, long bytes, TimingConfig timing) {
        if (bytes <= 0) throw new IllegalArgumentException(name + ": give the bytes it must move (no buffer arguments to count)");
        TimedLaunch.Timed t = launch instanceof TimedLaunch.TimedElsewhere elsewhere ? elsewhere.time(name, bytes, timing) : TimedLaunch.time(device, launch, name, bytes, timing);
        double measured = t.normal().medianMicros(), ideal = bytes / cal.bandwidth() * 1e6;
        return new Result(name, t.normal(), t.graph(), bytes, ideal, measured, 100 * ideal / measured, bytes / (measured * 1e-6) / 1e9);
    }
}
