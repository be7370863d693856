package gluelab.device;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The host's load, which a measurement on a busy machine should be read against. */
public final class HostLoad {
    private HostLoad() {}

    /** The 1-minute load average, or a negative number where the OS reports none. */
    public static double oneMinute() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        }
    }
}
