package gluelab.calibrate;

/**
 * Measured bandwidth and compute of a device. Bandwidths are bytes per second with read + write
 * counted (copy moves 2 x bytes, triad 3 x bytes); floors use {@link #bandwidth()}, the median copy
 * of the fastest copy form ({@code copyForm}; {@code copyForms}: every form's median).
 */
public record Calibration(String deviceFingerprint, String deviceName, long bufferBytes, double copyMedian,
                          double copyBest, double triadMedian, double triadBest, double peakFlops,
                          double theoreticalBandwidth, String measuredAt, String copyForm, java.util.Map<String, Double> copyForms,
                          boolean fromCache) {
    public Calibration {
        // Files written before the forms were recorded have neither.
        copyForm = copyForm == null ? "" : copyForm;
        copyForms = copyForms == null ? java.util.Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(copyForms));
        // A cached file can hold anything: a zero or infinite bandwidth would give infinite or zero ideal times.
        if (!(copyMedian > 0) || Double.isInfinite(copyMedian)) {
            throw new IllegalArgumentException("calibration bandwidth (copyMedian) must be a finite number > 0 bytes/s, got " + copyMedian);
        }
        if (!(peakFlops >= 0) || Double.isInfinite(peakFlops)) {
            throw new IllegalArgumentException("calibration peakFlops must be a finite number >= 0, got " + peakFlops);
        }
    }

    public double bandwidth() { return copyMedian; }

    public Calibration asCached() {
        return new Calibration(deviceFingerprint, deviceName, bufferBytes, copyMedian, copyBest, triadMedian, triadBest,
                peakFlops, theoreticalBandwidth, measuredAt, copyForm, copyForms, true);
    }

    /** A calibration given by the user (e.g. a GPU's known copy bandwidth) rather than measured. */
    public static Calibration given(String name, double bandwidth, double peakFlops) {
        return new Calibration("given", name, 0, bandwidth, bandwidth, bandwidth, bandwidth, peakFlops, 0, "given", "", java.util.Map.of(), false);
    }

    public String describe() {
        return String.format("copy %.1f GB/s (best %.1f%s), triad %.1f GB/s, peak %.2f TFLOP/s%s%s",
                copyMedian / 1e9, copyBest / 1e9, copyForm.isEmpty() ? "" : "; fastest of " + Math.max(1, copyForms.size()) + " forms: " + copyForm, triadMedian / 1e9, peakFlops / 1e12,
                theoreticalBandwidth > 0 ? String.format(", %.0f%% of theoretical %.0f GB/s", 100 * copyMedian / theoreticalBandwidth, theoreticalBandwidth / 1e9) : "",
                fromCache ? " (cached)" : "");
    }
}
