package gluelab.timing;

import gluelab.device.Device;
import gluelab.device.HostLoad;

import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

/**
 * Whether the device is quiet, read before and after a confirmation: from the device's own
 * telemetry (on a GPU: other processes on it, utilisation, SM clock and clock-event reasons) and
 * from the host (load average, processes busy on a CPU core; for the CPU device these are the whole
 * story). A device that is not quiet is reported, with each finding, not silently timed.
 */
public record QuietCheck(String when, boolean quiet, List<String> findings, Map<String, String> readings) {
    /** NVML's clock-event reasons that mean the clocks were pulled down: HW slowdown, SW/HW thermal, HW power brake. */
    static final long THROTTLE_BITS = 0x8L | 0x20L | 0x40L | 0x80L;
    /** A process using more than this share of one core during the sample is busy. */
    static final double BUSY_CORE_SHARE = 0.5;
    static final int UTILIZATION_BUSY_PERCENT = 10;
    /**
     * NVML's utilisation is the share of its last sample period (up to 1 s) that a kernel ran, so
     * right after our own work (a screen before a confirmation) it reads busy: read again after
     * this long, at most {@link #UTILIZATION_READS} times, before calling the device busy.
     */
    static final Duration UTILIZATION_SETTLE = Duration.ofMillis(1200);
    static final int UTILIZATION_READS = 3;

    public QuietCheck {
        findings = List.copyOf(findings);
        readings = Collections.unmodifiableMap(new LinkedHashMap<>(readings));
    }

    /** The device's telemetry without the compile log. */
    public static Map<String, String> deviceReadings(Device device) {
        Map<String, String> m = new LinkedHashMap<>();
        device.telemetry().forEach((k, v) -> {
            if (!k.startsWith("compile.")) m.put(k, v);
        });
        return m;
    }

    /** Reads the device and the host now; {@code ignore} are pids of our own processes. */
    public static QuietCheck of(Device device, String when, Set<Long> ignore) {
        Map<String, String> r = when.equals("before")
                ? settled(() -> deviceReadings(device), UTILIZATION_SETTLE, UTILIZATION_READS)
                : new LinkedHashMap<>(deviceReadings(device));
        int util = parseInt(r.get("gpu_utilization_percent"));
        List<String> findings = new ArrayList<>();
        List<Long> foreign = foreign(r.get("other_gpu_processes"), ignore);
        if (!foreign.isEmpty()) findings.add("other processes on " + device.id() + ": " + foreign);
        if (when.equals("before") && util > UTILIZATION_BUSY_PERCENT) {
            findings.add(device.id() + " busy: " + util + "% utilisation"
                    + (r.containsKey("utilization_reads") ? " (still, " + r.get("utilization_reads") + " reads over "
                    + UTILIZATION_SETTLE.multipliedBy(UTILIZATION_READS - 1).toMillis() / 1000.0 + " s)" : ""));
        }
        throttled(r).ifPresent(findings::add);

        int cpus = Runtime.getRuntime().availableProcessors();
        r.put("host.cpus", Integer.toString(cpus));
        double load = HostLoad.oneMinute();
        if (load >= 0) {
            r.put("host.load_average_1m", String.format(Locale.ROOT, "%.2f", load));
            if (load > cpus) findings.add(String.format(Locale.ROOT, "host load average %.2f on %d cores", load, cpus));
        }
        List<String> busy = busyProcesses(ignore, Duration.ofMillis(300));
        r.put("host.busy_processes", busy.toString());
        if (!busy.isEmpty()) findings.add("busy processes on the host: " + String.join(", ", busy));
        return new QuietCheck(when, findings.isEmpty(), findings, r);
    }

    /** PIDs in NVML's "[1, 2]" list that are not this process's children (gluelab's own kernel worker) nor in {@code ignore}. */
    static List<Long> foreign(String pids, Set<Long> ignore) {
        if (pids == null || pids.isBlank()) return List.of();
        Set<Long> ours = new HashSet<>(ignore);
        ProcessHandle.current().descendants().forEach(h -> ours.add(h.pid()));
        List<Long> out = new ArrayList<>();
        for (String p : pids.replaceAll("[\\[\\]\\s]", "").split(",")) {
            if (p.isEmpty()) continue;
            try {
                long pid = Long.parseLong(p);
                if (!ours.contains(pid)) out.add(pid);
            } catch (NumberFormatException e) {
                // Not a pid list: nothing to report from it.
            }
        }
        return out;
    }

    /** Why the clocks were pulled down, from NVML's clock-event reasons, if they were. */
    public static Optional<String> throttled(Map<String, String> readings) {
        String reasons = readings.get("clock_event_reasons");
        if (reasons == null || !reasons.startsWith("0x")) return Optional.empty();
        long bits;
        try {
            bits = Long.parseUnsignedLong(reasons.substring(2), 16);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        if (bits == -1L || (bits & THROTTLE_BITS) == 0) return Optional.empty();
        List<String> why = new ArrayList<>();
        if ((bits & 0x8L) != 0) why.add("HW slowdown");
        if ((bits & 0x20L) != 0) why.add("SW thermal");
        if ((bits & 0x40L) != 0) why.add("HW thermal");
        if ((bits & 0x80L) != 0) why.add("HW power brake");
        return Optional.of("clocks throttled (" + String.join(", ", why) + ", reasons " + reasons + ")");
    }

    /**
     * Readings once utilisation has settled: read again after {@code settle} while it reads busy, at
     * most {@code reads} reads in all; a reading taken more than once says how many times.
     */
    static Map<String, String> settled(java.util.function.Supplier<Map<String, String>> read, Duration settle, int reads) {
        Map<String, String> r = new LinkedHashMap<>(read.get());
        for (int n = 2; n <= reads && parseInt(r.get("gpu_utilization_percent")) > UTILIZATION_BUSY_PERCENT; n++) {
            if (!sleep(settle)) break;
            r = new LinkedHashMap<>(read.get());
            r.put("utilization_reads", Integer.toString(n));
        }
        return r;
    }

    private static boolean sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int parseInt(String s) {
        try {
            return s == null ? -1 : Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Processes (other than ours and our children) that used more than half a core over {@code window}: "pid command 87%". */
    static List<String> busyProcesses(Set<Long> ignore, Duration window) {
        long self = ProcessHandle.current().pid();
        Set<Long> ours = new HashSet<>(ignore);
        ProcessHandle.current().descendants().forEach(h -> ours.add(h.pid()));
        Map<Long, Duration> first = cpuTimes();
        try {
            Thread.sleep(window.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
        Map<Long, Duration> second = cpuTimes();
        record Busy(long pid, String command, double share) {}
        List<Busy> busy = new ArrayList<>();
        for (var e : second.entrySet()) {
            long pid = e.getKey();
            if (pid == self || ours.contains(pid) || !first.containsKey(pid)) continue;
            double share = (e.getValue().toNanos() - first.get(pid).toNanos()) / (double) window.toNanos();
            if (share < BUSY_CORE_SHARE) continue;
            String cmd = ProcessHandle.of(pid).flatMap(h -> h.info().command()).map(c -> Path.of(c).getFileName().toString()).orElse("?");
            busy.add(new Busy(pid, cmd, share));
        }
        busy.sort(Comparator.comparingDouble(Busy::share).reversed());
        return busy.stream().limit(5).map(b -> String.format(Locale.ROOT, "%d %s %.0f%%", b.pid(), b.command(), b.share() * 100)).toList();
    }

    private static Map<Long, Duration> cpuTimes() {
        Map<Long, Duration> m = new HashMap<>();
        ProcessHandle.allProcesses().forEach(h -> h.info().totalCpuDuration().ifPresent(d -> m.put(h.pid(), d)));
        return m;
    }
}
