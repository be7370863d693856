package gluelab.record;

import gluelab.calibrate.Calibration;
import gluelab.device.DeviceFacts;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/** Everything needed to tell where and with what a run's numbers were measured. */
public record Environment(String gluelabVersion, String jvm, String os, String host, String gitCommit, boolean gitDirty,
                          DeviceFacts device, Calibration calibration, String startedAt) {
    public static final String VERSION = "0.1.0";

    /** The environment now, for a run that started at {@code startedAt}. */
    public static Environment capture(DeviceFacts device, Calibration calibration, Instant startedAt) {
        String commit = git("rev-parse", "HEAD");
        String status = git("status", "--porcelain");
        return new Environment(VERSION, "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                hostName(), commit == null ? "-" : commit, status != null && !status.isBlank(), device, calibration,
                startedAt.toString());
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "-";
        }
    }

    /** Output of a git command in the working directory, or null outside a repository. */
    private static String git(String... args) {
        try {
            var cmd = new java.util.ArrayList<String>();
            cmd.add("git");
            cmd.addAll(java.util.List.of(args));
            Process p = new ProcessBuilder(cmd).directory(Path.of("").toAbsolutePath().toFile()).redirectErrorStream(false).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) return null;
            return out;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }
}
