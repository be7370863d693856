package gluelab.torch;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.progress.Progress;
import gluelab.record.Row;

import java.util.ArrayList;
import java.util.List;

/**
 * Torch rows next to gluelab's on one device: the bridge started for the device's kind, with the same
 * cache flush (twice the last-level cache) and calibration, so floors and methodology match.
 */
public final class TorchSide implements AutoCloseable {
    public static final List<String> COMPILE_MODES = List.of("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs");

    private final TorchBridge bridge;
    private final Device device;

    private final PythonChoice python;
    /** Taken from {@link SharedHarnesses}: closing lets go of it instead of ending it. */
    private final boolean shared;

    private TorchSide(TorchBridge bridge, Device device, PythonChoice python, boolean shared) {
        this.bridge = bridge;
        this.device = device;
        this.python = python;
        this.shared = shared;
    }

    /** The torch side in {@code python} (a path or a name on PATH), or in the Python {@link PythonFinder}'s rule finds when null. */
    public static TorchSide start(String python, Device device) {
        return start(PythonFinder.standard().find(python, PythonSource.ARGUMENT), device);
    }

    /** The torch side in the chosen Python, in a harness process of its own; the choice and why is printed once per process. */
    public static TorchSide start(PythonChoice python, Device device) {
        String kind = kindOf(device);
        python.announceOnce();
        return new TorchSide(TorchBridge.start(python.python().toString(), kind), device, python, false);
    }

    /**
     * The torch side in the chosen Python, in the harness every lab of this JVM on that Python and
     * device kind shares ({@link SharedHarnesses}); {@link #close()} lets go of it, and the last to let go ends it.
     */
    public static TorchSide shared(PythonChoice python, Device device) {
        String kind = kindOf(device);
        python.announceOnce();
        return new TorchSide(SharedHarnesses.acquire(python.python(), kind), device, python, true);
    }

    private static String kindOf(Device device) {
        // gluelab's device kinds are torch's device names; TorchBridge refuses any other
        String kind = device.facts().kind();
        if (device.facts().ordinal() != 0) {
            throw new IllegalArgumentException("torch rows run on " + kind + ":0; start gluelab with CUDA_VISIBLE_DEVICES to pick another GPU");
        }
        return kind;
    }

    /** The Python this side runs, and why that one. */
    public PythonChoice python() { return python; }

    public static String checkMode(String mode) {
        if (!COMPILE_MODES.contains(mode)) throw new IllegalArgumentException("unknown --compile-mode '" + mode + "'; known: " + COMPILE_MODES);
        return mode;
    }

    public TorchBridge bridge() { return bridge; }

    public TorchVersions versions() { return bridge.versions(); }

    /** The device's own flush, so torch's samples are flushed as gluelab's are. */
    public long flushBytes() { return device.flushBytes(); }

    /** The plan's ops in torch; the result's rows join gluelab's in {@code gluelab}. */
    public Combined bench(BenchPlan plan, Calibration cal, BenchResult gluelab, List<TorchVariant> variants, String mode, Progress progress) {
        TorchResult t = new TorchBench(bridge, cal, flushBytes()).run(plan, variants, checkMode(mode), progress);
        List<Row> all = new ArrayList<>(gluelab.rows());
        all.addAll(t.rows());
        return new Combined(gluelab.withRows(all), t);
    }

    /** gluelab's and torch's rows in one result, with torch's compile accounting. */
    public record Combined(BenchResult result, TorchResult torch) {
        public tech.tablesaw.api.Table table() { return TorchTables.sideBySide(result.rows()); }

        public tech.tablesaw.api.Table compiles() { return TorchTables.compiles(torch.compiles()); }
    }

    @Override public void close() {
        if (shared) SharedHarnesses.release(bridge);
        else bridge.close();
    }
}
