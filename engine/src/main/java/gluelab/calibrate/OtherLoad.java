package gluelab.calibrate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many cores other processes kept busy over a window: the host's busy CPU time (from
 * {@code /proc/stat}) minus this process's own, divided by the wall time. The load average lags by
 * a minute and counts this process's own threads; this reads what competed with the measurement
 * while it ran. {@link #cores()} is negative where the OS reports no counters.
 */
public final class OtherLoad {
    /** Linux reports {@code /proc/stat} in USER_HZ, 100 a second on every architecture it runs on. */
    private static final double TICKS_PER_SECOND = 100;

    private final double busy0, own0;
    private final long wall0;

    private OtherLoad(double busy0, double own0, long wall0) {
        this.busy0 = busy0;
        this.own0 = own0;
        this.wall0 = wall0;
    }

    public static OtherLoad start() { return new OtherLoad(hostBusySeconds(), ownCpuSeconds(), System.nanoTime()); }

    /** Cores' worth of CPU other processes used since {@link #start()}, or -1 where unknown. */
    public double cores() {
        double busy = hostBusySeconds(), own = ownCpuSeconds(), wall = (System.nanoTime() - wall0) * 1e-9;
        if (busy0 < 0 || busy < 0 || own0 < 0 || own < 0 || !(wall > 0)) return -1;
        return Math.max(0, ((busy - busy0) - (own - own0)) / wall);
    }

    /** user + nice + system + irq + softirq + steal of the aggregate "cpu" line, in seconds; -1 if unreadable. */
    static double hostBusySeconds() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (!line.startsWith("cpu ")) continue;
                String[] f = line.trim().split("\\s+");
                long ticks = 0;
                for (int i : new int[] {1, 2, 3, 6, 7, 8}) ticks += i < f.length ? Long.parseLong(f[i]) : 0;
                return ticks / TICKS_PER_SECOND;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or a /proc we cannot read: unknown
        }
        return -1;
    }

    static double ownCpuSeconds() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            long ns = os.getProcessCpuTime();
            return ns < 0 ? -1 : ns * 1e-9;
        }
        return -1;
    }
}
