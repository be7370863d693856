package gluelab.timing;

import java.util.Optional;

/**
 * When to stop sampling, with nvbench's defaults: at least {@code minSamples} samples and
 * {@code minSeconds} of measured time, and the relative standard deviation under
 * {@code maxRelStdev}; or {@code timeoutSeconds} of wall time; or {@code maxSamples}.
 */
public record StopRule(int minSamples, double minSeconds, double maxRelStdev, double timeoutSeconds, int maxSamples) {
    public enum Reason { CONVERGED, TIMEOUT, MAX_SAMPLES }

    public StopRule {
        if (minSamples < 1) throw new IllegalArgumentException("minSamples must be >= 1, got " + minSamples);
        if (minSeconds < 0) throw new IllegalArgumentException("minSeconds must be >= 0, got " + minSeconds);
        if (!(maxRelStdev > 0)) throw new IllegalArgumentException("maxRelStdev must be > 0, got " + maxRelStdev);
        if (!(timeoutSeconds > 0)) throw new IllegalArgumentException("timeoutSeconds must be > 0, got " + timeoutSeconds);
        if (maxSamples < minSamples) throw new IllegalArgumentException("maxSamples must be >= minSamples");
    }

    /** nvbench: >= 10 samples, >= 0.5 s measured, rel stdev < 0.5%, 15 s timeout. */
    public static StopRule nvbench() { return new StopRule(10, 0.5, 0.005, 15, 1_000_000); }

    /** Short budgets for screening many measurements (the demo): 10 samples, 0.1 s, 2%, 0.6 s. */
    public static StopRule quick() { return new StopRule(10, 0.1, 0.02, 0.6, 1_000_000); }

    public StopRule withTimeout(double seconds) { return new StopRule(minSamples, minSeconds, maxRelStdev, seconds, maxSamples); }

    public StopRule withMinSeconds(double seconds) { return new StopRule(minSamples, seconds, maxRelStdev, timeoutSeconds, maxSamples); }

    /**
     * Whether to stop after these samples. {@code wallSeconds} is the time spent so far including
     * flushes and overhead.
     */
    public Optional<Reason> check(SampleStats stats, double wallSeconds) {
        if (stats.count() >= maxSamples) return Optional.of(Reason.MAX_SAMPLES);
        if (stats.count() >= minSamples && stats.sum() >= minSeconds && stats.relStdev() < maxRelStdev) {
            return Optional.of(Reason.CONVERGED);
        }
        if (wallSeconds >= timeoutSeconds && stats.count() >= 1) return Optional.of(Reason.TIMEOUT);
        return Optional.empty();
    }
}
