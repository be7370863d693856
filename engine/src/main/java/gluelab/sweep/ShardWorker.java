package gluelab.sweep;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Devices;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The worker process of a local multi-device sweep: opens its one device (its own CUDA context),
 * calibrates it, then runs the shards its coordinator sends until its input closes. It stops after
 * the first failed shard, so a sticky CUDA fault never spoils the next shard: the coordinator
 * starts a fresh worker on that device.
 */
public final class ShardWorker {
    /** Exit status after a failed shard. */
    public static final int EXIT_FAILED_SHARD = 3, EXIT_UNUSABLE = 4;

    private ShardWorker() {}

    public static int serve(SweepDir dir, String deviceSelector, Path calibrationCache, java.io.InputStream in, PrintStream out) {
        stopWithTheCoordinator();
        Device device;
        Calibration cal;
        try {
            device = Devices.open(deviceSelector, msg -> System.err.println("gluelab worker: " + msg));
            cal = ShardRunner.calibrate(device, calibrationCache, dir);
        } catch (RuntimeException | Error e) {
            send(out, new WorkerMessage(WorkerMessage.Type.UNUSABLE, "-", deviceSelector + ": " + e));
            return EXIT_UNUSABLE;
        }
        try (device) {
            send(out, new WorkerMessage(WorkerMessage.Type.READY, device.id(), device.facts().name() + ", " + cal.describe()));
            ShardRunner runner = new ShardRunner(dir, device, cal);
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = reader.readLine()) != null; ) {
                if (!line.startsWith("run ")) continue;
                Shard s = dir.plan().shard(Integer.parseInt(line.substring(4).trim()));
                String idx = Integer.toString(s.index());
                try {
                    runner.run(s, (task, done, total, detail) ->
                            send(out, new WorkerMessage(WorkerMessage.Type.PROGRESS, idx, task + " " + done + "/" + total + " " + detail)));
                    send(out, new WorkerMessage(WorkerMessage.Type.DONE, idx, "-"));
                } catch (RuntimeException | Error e) {
                    e.printStackTrace();
                    send(out, new WorkerMessage(WorkerMessage.Type.FAILED, idx, String.valueOf(e)));
                    return EXIT_FAILED_SHARD;
                }
            }
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException("worker input: " + e.getMessage(), e);
        }
    }

    private static void send(PrintStream out, WorkerMessage m) {
        synchronized (out) {
            out.println(m.line());
            out.flush();
            // The pipe to the coordinator is broken: it is gone, and nobody will read this shard's result.
            if (out.checkError()) orphaned("its sweep coordinator stopped reading");
        }
    }

    /** The exit status of a worker whose coordinator ended (it was killed, or its machine's session ended). */
    public static final int EXIT_ORPHANED = 5;

    /**
     * A worker outlived a killed coordinator, measuring for seconds (a shard's worth, then waiting on
     * its input forever) on a GPU the next run would use: it ends when its parent process does.
     */
    private static void stopWithTheCoordinator() {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> orphaned("its sweep coordinator (pid " + parent.pid() + ") ended")));
    }

    private static void orphaned(String why) {
        System.err.println("gluelab worker: " + why + "; stopping (the sweep's resume runs what is left)");
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_ORPHANED);
    }
}
