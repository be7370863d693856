package gluelab.sweep;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.files.Locations;
import gluelab.progress.ConsoleProgress;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * The entry point of the processes a sweep starts:
 * {@code worker DIR --device D} (a local sweep's worker: shards from its coordinator, see
 * {@link ShardWorker}) and {@code shard DIR --index N [--device D]} (one shard in this process:
 * what a Slurm array task runs). Not a user command: the sweep writes these lines itself.
 */
public final class ShardMain {
    private ShardMain() {}

    public static void main(String[] args) {
        int code;
        try {
            code = run(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("gluelab sweep: error: " + e.getMessage());
            code = 2;
        } catch (RuntimeException e) {
            System.err.println("gluelab sweep: error: " + e);
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    static int run(List<String> args) {
        if (args.size() < 2) throw new IllegalArgumentException("usage: worker DIR --device D | shard DIR --index N [--device D]");
        SweepDir dir = SweepDir.open(Path.of(args.get(1)));
        String device = option(args, "--device", "auto");
        return switch (args.getFirst()) {
            case "worker" -> {
                // The protocol owns stdout; anything else printed goes to the worker's log.
                PrintStream protocol = System.out;
                System.setOut(System.err);
                yield ShardWorker.serve(dir, device, Locations.calibrationCache(), System.in, protocol);
            }
            case "shard" -> runShard(dir, dir.plan().shard(Integer.parseInt(option(args, "--index", "-1"))), device);
            default -> throw new IllegalArgumentException("unknown sweep process '" + args.getFirst() + "' (worker or shard)");
        };
    }

    private static int runShard(SweepDir dir, Shard s, String device) {
        Device opened;
        try {
            opened = Devices.open(device);
        } catch (RuntimeException e) {
            // No device on this node: the shard's status says so, not only the task's log.
            dir.markFailed(s, "cannot open device " + device + " on " + hostName() + ": " + e.getMessage());
            throw e;
        }
        try (Device dev = opened) {
            Calibration cal = ShardRunner.calibrate(dev, Locations.calibrationCache(), dir);
            System.err.println("gluelab: shard " + s + " on " + dev.id() + " (" + dev.facts().name() + "), " + cal.describe());
            new ShardRunner(dir, dev, cal).run(s, new ConsoleProgress(System.err));
            System.err.println("gluelab: shard " + s.name() + " done: " + dir.shardDir(s));
        }
        return 0;
    }

    private static String option(List<String> args, String name, String fallback) {
        int i = args.indexOf(name);
        if (i < 0) return fallback;
        if (i + 1 >= args.size()) throw new IllegalArgumentException(name + " needs a value");
        return args.get(i + 1);
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "this node";
        }
    }
}
