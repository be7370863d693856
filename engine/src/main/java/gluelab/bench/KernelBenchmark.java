package gluelab.bench;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.timing.Harness;
import gluelab.timing.Measurement;
import gluelab.timing.TimingConfig;

/**
 * Any launch (an analyst's own kernel) timed against its floor like a catalogue op: the bytes
 * are given, or taken from the sizes of its buffer arguments.
 */
public final class KernelBenchmark {
    /** A launch that knows its name and the bytes its buffer arguments hold. */
    public interface Subject extends Launch {
        String name();

        long bufferBytes();
    }

    /** The measurement with its floor. */
    public record Result(String name, Measurement measurement, long bytes, double idealUs, double measuredUs, double pctOfFloor,
                         double achievedGBs) {}

    private KernelBenchmark() {}

    public static Result run(Device device, Calibration cal, Subject s, TimingConfig timing) {
        return run(device, cal, s, s.bufferBytes(), timing);
    }

    public static Result run(Device device, Calibration cal, Launch launch, String name, long bytes, TimingConfig timing) {
        Subject s = new Subject() {
            @Override public String name() { return name; }

            @Override public long bufferBytes() { return bytes; }

            @Override public void run() { launch.run(); }

            @Override public int kernels() { return launch.kernels(); }

            @Override public long scratchBytes() { return launch.scratchBytes(); }
        };
        return run(device, cal, s, bytes, timing);
    }

    private static Result run(Device device, Calibration cal, Subject s, long bytes, TimingConfig timing) {
        if (bytes <= 0) throw new IllegalArgumentException(s.name() + ": give the bytes it must move (no buffer arguments to count)");
        Measurement m = new Harness(device).measure(new Harness.Subject(s.name(), s, bytes), timing);
        double measured = m.summary().median() * 1e6, ideal = bytes / cal.bandwidth() * 1e6;
        return new Result(s.name(), m, bytes, ideal, measured, 100 * ideal / measured, bytes / (measured * 1e-6) / 1e9);
    }
}
