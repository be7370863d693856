package gluelab.timing;

/**
 * One timed thing: every raw sample (seconds per launch) kept, with its summary and why sampling
 * stopped. {@code kernels} is launches per run; {@code peakBytes} the memory it held; {@code discarded}
 * counts samples thrown away as invalid (taken while the GPU was throttled).
 */
public record Measurement(String label, Mode mode, double[] samples, Summary summary, StopRule.Reason stopReason,
                          int kernels, long peakBytes, double wallSeconds, int discarded) {
    public Measurement {
        samples = samples.clone();
    }

    public double medianMicros() { return summary.median() * 1e6; }

    @Override public double[] samples() { return samples.clone(); }
}
