package gluelab.device;

import java.util.Map;

/**
 * What a device is: kept in every experiment record and used for the calibration cache key.
 * theoreticalBandwidth is 0 where it cannot be known (most CPUs).
 */
public record DeviceFacts(String kind, String name, int ordinal, long memoryBytes, long lastLevelCacheBytes,
                          int cores, double theoreticalBandwidth, String driverVersion, String runtimeVersion,
                          Map<String, String> extras) {
    public DeviceFacts {
        extras = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extras));
    }

    /** A stable key for caches: changes when the hardware or its software stack does. */
    public String fingerprint() {
        String text = kind + "|" + name + "|" + ordinal + "|" + memoryBytes + "|" + lastLevelCacheBytes + "|" + cores
                + "|" + driverVersion + "|" + runtimeVersion;
        return Integer.toHexString(text.hashCode()) + Long.toHexString(text.chars().asLongStream().reduce(7, (a, b) -> a * 131 + b));
    }
}
