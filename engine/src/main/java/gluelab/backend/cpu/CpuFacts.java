package gluelab.backend.cpu;

import gluelab.device.DeviceFacts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads what the OS says about this CPU: model name, memory, last-level cache. */
final class CpuFacts {
    private CpuFacts() {}

    static DeviceFacts read(int threads) {
        Map<String, String> extras = new LinkedHashMap<>();
        extras.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        extras.put("arch", System.getProperty("os.arch"));
        extras.put("threads", Integer.toString(threads));
        return new DeviceFacts("cpu", modelName(), 0, memInfo("MemTotal"), lastLevelCache(), threads, 0,
                "-", "Java " + Runtime.version(), extras);
    }

    static String modelName() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException | RuntimeException ignored) {
            // Not Linux: fall through to the JVM's view.
        }
        return System.getProperty("os.arch") + " CPU";
    }

    /** A /proc/meminfo field in bytes, or the JVM's max heap when unavailable. */
    static long memInfo(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith(field + ":")) {
                    String[] parts = line.substring(field.length() + 1).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // Fall through.
        }
        return Runtime.getRuntime().maxMemory();
    }

    /** Size of the highest-level cache of cpu0; 32 MiB when the OS does not say. */
    static long lastLevelCache() {
        Path base = Path.of("/sys/devices/system/cpu/cpu0/cache");
        long best = 0;
        int bestLevel = -1;
        try (var dirs = Files.list(base)) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("index")).toList()) {
                int level = Integer.parseInt(Files.readString(d.resolve("level")).trim());
                String size = Files.readString(d.resolve("size")).trim();
                long bytes = parseSize(size);
                if (level > bestLevel || (level == bestLevel && bytes > best)) {
                    bestLevel = level;
                    best = bytes;
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // Fall through.
        }
        return best > 0 ? best : 32L << 20;
    }

    static long parseSize(String s) {
        for (var unit : List.of(Map.entry("K", 1024L), Map.entry("M", 1L << 20), Map.entry("G", 1L << 30))) {
            if (s.endsWith(unit.getKey())) return Long.parseLong(s.substring(0, s.length() - 1)) * unit.getValue();
        }
        return Long.parseLong(s);
    }
}
