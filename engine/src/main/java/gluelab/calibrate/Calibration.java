package gluelab.calibrate;

/**
 * Measured bandwidth and compute of a device. Bandwidths are bytes per second with read + write
 * counted (copy moves 2 x bytes, triad 3 x bytes); floors use {@link #bandwidth()}, the median copy.
 */
public record Calibration(String deviceFingerprint, String deviceName, long bufferBytes, double copyMedian,
                          double copyBest, double triadMedian, double triadBest, double peakFlops,
                          double theoreticalBandwidth, String measuredAt, boolean fromCache) {
    public Calibration {
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
                peakFlops, theoreticalBandwidth, measuredAt, true);
    }

    /** A calibration given by the user (e.g. a GPU's known copy bandwidth) rather than measured. */
    public static Calibration given(String name, double bandwidth, double peakFlops) {
        return new Calibration("given", name, 0, bandwidth, bandwidth, bandwidth, bandwidth, peakFlops, 0, "given", false);
    }

    public String describe() {
        return String.format("copy %.1f GB/s (best %.1f), triad %.1f GB/s, peak %.2f TFLOP/s%s%s",
                copyMedian / 1e9, copyBest / 1e9, triadMedian / 1e9, peakFlops / 1e12,
                theoreticalBandwidth > 0 ? String.format(", %.0f%% of theoretical %.0f GB/s", 100 * copyMedian / theoreticalBandwidth, theoreticalBandwidth / 1e9) : "",
                fromCache ? " (cached)" : "");
    }
}
