package gluelab.calibrate;

/**
 * Measured bandwidth and compute of a device. Bandwidths are bytes per second with read + write
 * counted (copy moves 2 x bytes, triad 3 x bytes); floors use {@link #bandwidth()}, the median copy
 * of the fastest copy form ({@code copyForm}; {@code copyForms}: every form's median).
 * {@code copyNoise}, {@code triadNoise}: the medians' relative noise (-1: not measured);
 * {@code otherLoad}: cores other processes used while it ran (-1: unknown); {@code busy}: why the
 * numbers say the machine was busy ({@link Disturbance}), "" when nothing does. Files written
 * before these were recorded read as quiet with the spreads unknown.
 */
public record Calibration(String deviceFingerprint, String deviceName, long bufferBytes, double copyMedian,
                          double copyBest, double triadMedian, double triadBest, double peakFlops,
                          double theoreticalBandwidth, String measuredAt, String copyForm, java.util.Map<String, Double> copyForms,
                          boolean fromCache, double copyNoise, double triadNoise, double otherLoad, String busy) {
    public Calibration {
        busy = busy == null ? "" : busy;
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

    /** A calibration with no spread or load recorded (given figures, tests, files from before). */
    public Calibration(String deviceFingerprint, String deviceName, long bufferBytes, double copyMedian,
                       double copyBest, double triadMedian, double triadBest, double peakFlops,
                       double theoreticalBandwidth, String measuredAt, String copyForm, java.util.Map<String, Double> copyForms,
                       boolean fromCache) {
        this(deviceFingerprint, deviceName, bufferBytes, copyMedian, copyBest, triadMedian, triadBest, peakFlops,
                theoreticalBandwidth, measuredAt, copyForm, copyForms, fromCache, -1, -1, -1, "");
    }

    public double bandwidth() { return copyMedian; }

    /** True when the numbers say it was taken on a busy machine: every floor divided by it reads low. */
    @com.fasterxml.jackson.annotation.JsonIgnore public boolean isBusy() { return !busy.isEmpty(); }

    /** "calibration taken on a busy machine (reason)" for a caveat beside a figure, or "". */
    @com.fasterxml.jackson.annotation.JsonIgnore public String caveat() { return isBusy() ? "calibration taken on a busy machine (" + busy + ")" : ""; }

    public Calibration asCached() {
        return new Calibration(deviceFingerprint, deviceName, bufferBytes, copyMedian, copyBest, triadMedian, triadBest,
                peakFlops, theoreticalBandwidth, measuredAt, copyForm, copyForms, true, copyNoise, triadNoise, otherLoad, busy);
    }

    /** A calibration given by the user (e.g. a GPU's known copy bandwidth) rather than measured. */
    public static Calibration given(String name, double bandwidth, double peakFlops) {
        return new Calibration("given", name, 0, bandwidth, bandwidth, bandwidth, bandwidth, peakFlops, 0, "given", "", java.util.Map.of(), false);
    }

    public String describe() {
        return String.format("copy %.1f GB/s (best %.1f%s), triad %.1f GB/s, peak %.2f TFLOP/s%s%s",
                copyMedian / 1e9, copyBest / 1e9, copyForm.isEmpty() ? "" : "; fastest of " + Math.max(1, copyForms.size()) + " forms: " + copyForm, triadMedian / 1e9, peakFlops / 1e12,
                theoreticalBandwidth > 0 ? String.format(", %.0f%% of theoretical %.0f GB/s", 100 * copyMedian / theoreticalBandwidth, theoreticalBandwidth / 1e9) : "",
                fromCache ? " (cached)" : "") + (isBusy() ? "; BUSY: " + busy + " (floors divided by it read low)" : "");
    }
}
