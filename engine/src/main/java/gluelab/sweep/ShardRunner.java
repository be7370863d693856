package gluelab.sweep;

import gluelab.bench.BenchSession;
import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.device.Device;
import gluelab.progress.Progress;
import gluelab.record.ExperimentRecord;
import gluelab.record.RecordPublisher;
import gluelab.record.RecordStore;
import gluelab.record.RunKind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Runs shards of a sweep on one device and publishes each as an ordinary run folder. A shard
 * already published is not run again (so a resubmission runs only what is missing); a shard that
 * fails, or whose process is stopped (scancel sends SIGTERM), keeps a FAILED marker naming why.
 */
public final class ShardRunner {
    /** How a FAILED marker of a stopped shard begins. */
    public static final String CANCELLED = "cancelled";
    /** A shard's record carries the default stop rule; the merge ranks under it. */
    static final double STOP_FRACTION = 0.01;

    private final SweepDir dir;
    private final Device device;
    private final Calibration calibration;

    public ShardRunner(SweepDir dir, Device device, Calibration calibration) {
        this.dir = dir;
        this.device = device;
        this.calibration = calibration;
    }

    /**
     * The device's calibration from the cache, measured under a file lock so workers sharing a
     * cache (several CPU workers, array tasks on one node) measure once instead of all at once.
     */
    public static Calibration calibrate(Device device, Path cacheDir) {
        try {
            Files.createDirectories(cacheDir);
            try (FileChannel ch = FileChannel.open(cacheDir.resolve(device.facts().fingerprint() + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 var lock = ch.lock()) {
                return new Calibrator(device, cacheDir).calibrate(false);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock the calibration cache " + cacheDir + ": " + e.getMessage(), e);
        }
    }

    /**
     * The sweep's calibration of this kind of device: the first worker on it calibrates ({@link
     * #calibrate(Device, Path)}) and keeps the result in the sweep folder, and every later worker on
     * a device of the same fingerprint uses that one, so the shards of one sweep divide by one
     * calibration and merge. A busy calibration is shared too, and its flag travels with every shard
     * (a busy one is not cached as the device's figure, so without this each worker measured its own
     * and the shards could not be merged).
     */
    public static Calibration calibrate(Device device, Path cacheDir, SweepDir dir) {
        String fp = device.facts().fingerprint();
        Path shared = dir.root().resolve("calibration-" + fp + ".json");
        try (FileChannel ch = FileChannel.open(dir.root().resolve(".calibration-" + fp + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             var lock = ch.lock()) {
            if (Files.isRegularFile(shared)) return gluelab.files.Json.MAPPER.readValue(shared.toFile(), Calibration.class);
            Calibration c = calibrate(device, cacheDir);
            gluelab.files.AtomicFiles.write(shared, gluelab.files.Json.write(c));
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot share the sweep's calibration in " + shared + ": " + e.getMessage(), e);
        }
    }

    /** Runs one shard (unless already published) and returns its record. */
    public ExperimentRecord run(Shard s, Progress progress) {
        if (dir.fileStatus(s).state() == ShardState.DONE) return RecordStore.load(dir.shardDir(s));
        var recording = new BenchSession.Recording(new RecordPublisher(dir.shardStore()), RunKind.SHARD, STOP_FRACTION)
                .as(s.name(), ShardBench.parameters(dir.id(), s));
        Thread hook = new Thread(() -> dir.markFailed(s, CANCELLED + ": process stopped (SIGTERM: scancel, a time limit, or Ctrl-C) while measuring"));
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return BenchSession.on(device, calibration).progress(progress).record(ShardBench.benchPlan(dir.plan(), s), recording).record();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: the process was stopped while this shard ran.
            }
        }
    }
}
