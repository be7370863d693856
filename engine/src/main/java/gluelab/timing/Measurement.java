package gluelab.timing;

import gluelab.units.Numbers;

import java.util.Optional;

/**
 * One timed thing: every raw sample (seconds per launch) kept, with its summary and why sampling
 * stopped. {@code kernels} is launches per run; {@code peakBytes} the memory it held; {@code discarded}
 * counts samples thrown away as invalid (taken while the GPU was throttled); {@code noise} is the
 * median's final relative noise and {@code rule} the stop rule it was measured under (null in
 * records older than the rule).
 */
public record Measurement(String label, Mode mode, double[] samples, Summary summary, StopRule.Reason stopReason,
                          int kernels, long peakBytes, double wallSeconds, int discarded, double noise, StopRule rule, int placements) {
    /**
     * {@code placements}: the independent buffer sets the launches rotated through (1: one set); a
     * record written before placements existed reads as 1, which is what those runs used.
     */
    public Measurement {
        samples = samples.clone();
        if (placements < 1) placements = 1;
    }

    /** A measurement of launches bound to one buffer set. */
    public Measurement(String label, Mode mode, double[] samples, Summary summary, StopRule.Reason stopReason,
                       int kernels, long peakBytes, double wallSeconds, int discarded, double noise, StopRule rule) {
        this(label, mode, samples, summary, stopReason, kernels, peakBytes, wallSeconds, discarded, noise, rule, 1);
    }

    public double medianMicros() { return summary.median() * 1e6; }

    @Override public double[] samples() { return samples.clone(); }

    /**
     * Why this measurement should not be trusted as it stands: it stopped on the timeout, has
     * fewer samples than its rule asks, or its noise is above the rule's bound. Empty when sound.
     */
    public Optional<String> noisy() {
        if (rule == null) return Optional.empty();
        StringBuilder why = new StringBuilder();
        if (stopReason == StopRule.Reason.TIMEOUT) why.append("timeout");
        if (summary.count() < rule.minSamples()) why.append(why.isEmpty() ? "" : ", ").append("n=").append(summary.count()).append(" < ").append(rule.minSamples());
        if (!(noise <= rule.maxNoise())) {
            why.append(why.isEmpty() ? "" : ", ").append(String.format(java.util.Locale.ROOT, "noise %s > %s",
                    Double.isFinite(noise) ? Numbers.percent(noise) : "unknown", Numbers.percent(rule.maxNoise())));
        }
        return why.isEmpty() ? Optional.empty() : Optional.of(why.toString());
    }
}
