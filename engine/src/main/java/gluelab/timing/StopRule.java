package gluelab.timing;

import java.util.Optional;

/**
 * When to stop sampling, the nvbench way: once there are at least {@code minSamples} samples
 * covering {@code minSeconds} of device time, stop as soon as the median's relative noise (see
 * {@link SampleStream#noise()}) is under {@code maxNoise} and the samples do not drift; else at
 * {@code timeoutSeconds} of wall time, or at {@code maxSamples}.
 */
public record StopRule(int minSamples, double minSeconds, double maxNoise, double timeoutSeconds, int maxSamples) {
    public enum Reason { CONVERGED, TIMEOUT, MAX_SAMPLES }

    /** Default noise bound on the median: 0.5%. */
    public static final double MAX_NOISE = 0.005;

    public StopRule {
        if (minSamples < 1) throw new IllegalArgumentException("minSamples must be >= 1, got " + minSamples);
        if (!(minSeconds >= 0) || Double.isInfinite(minSeconds)) throw new IllegalArgumentException("min time must be a finite number >= 0 s, got " + minSeconds);
        if (!(maxNoise > 0) || !(maxNoise < 1)) throw new IllegalArgumentException("max noise must be > 0 and < 1 (a fraction), got " + maxNoise);
        if (!(timeoutSeconds > 0) || Double.isInfinite(timeoutSeconds)) throw new IllegalArgumentException("timeout must be a finite number > 0 s, got " + timeoutSeconds);
        if (maxSamples < minSamples) throw new IllegalArgumentException("maxSamples must be >= minSamples (" + minSamples + "), got " + maxSamples);
    }

    /** The default for a single bench: >= 10 samples, >= 0.1 s of device time, noise < 0.5%, 15 s timeout. */
    public static StopRule standard() { return new StopRule(10, 0.1, MAX_NOISE, 15, 1_000_000); }

    /**
     * Screening many measurements (the demo, notebooks): >= 10 samples, >= 0.02 s of device time,
     * noise < 0.5%, 1 s timeout (on the H200 the slowest demo row converges in 0.45 s).
     */
    public static StopRule quick() { return new StopRule(10, 0.02, MAX_NOISE, 1, 1_000_000); }

    /**
     * The budget of a CUDA-graph row: each sample already averages every launch the graph
     * replays, so a few samples reach the same noise bound; the device time and bound are the same.
     */
    public StopRule forGraphReplays() { return new StopRule(Math.min(minSamples, 5), minSeconds, maxNoise, timeoutSeconds, maxSamples); }

    public StopRule withTimeout(double seconds) { return new StopRule(minSamples, minSeconds, maxNoise, seconds, maxSamples); }

    public StopRule withMinSeconds(double seconds) { return new StopRule(minSamples, seconds, maxNoise, timeoutSeconds, maxSamples); }

    public StopRule withMaxNoise(double noise) { return new StopRule(minSamples, minSeconds, noise, timeoutSeconds, maxSamples); }

    /** Whether to stop now. {@code wallSeconds} is the time spent so far, flushes and overhead included. */
    public Optional<Reason> check(SampleStream stream, double wallSeconds) {
        if (stream.count() >= maxSamples) return Optional.of(Reason.MAX_SAMPLES);
        if (stream.count() >= minSamples && stream.coveredSeconds() >= minSeconds && stream.noise() < maxNoise
                && !stream.drifting(maxNoise)) {
            return Optional.of(Reason.CONVERGED);
        }
        if (wallSeconds >= timeoutSeconds && stream.count() >= 1) return Optional.of(Reason.TIMEOUT);
        return Optional.empty();
    }

    /** Whether a finished measurement is trustworthy by this rule; {@link Measurement#noisy()} says why not. */
    public boolean met(Reason reason, int samples, double noise) {
        return reason != Reason.TIMEOUT && samples >= minSamples && noise <= maxNoise;
    }
}
