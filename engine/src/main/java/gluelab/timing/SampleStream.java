package gluelab.timing;

import java.util.Arrays;

/**
 * The samples of one measurement as they arrive, with what the stop rule asks of them: how many,
 * how much device time they cover, how noisy their median is, and whether they drift.
 *
 * <p>Noise is the half-width of the distribution-free 95% confidence interval of the median
 * (from order statistics), relative to the median: it shrinks as samples accumulate whatever the
 * spread of single samples, and stays wide when samples split between two modes near the median.
 */
public final class SampleStream {
    /** 95% two-sided normal quantile, for the order-statistic ranks of the median's interval. */
    static final double Z95 = 1.959964;

    private double[] samples = new double[64];
    private int count;
    private double coveredSeconds;
    private int noiseAt = -1, driftAt = -1;
    private double noise = Double.POSITIVE_INFINITY;
    private boolean drift;

    /** A sample (seconds per launch) and the device time it covered (all launches it timed). */
    public void add(double seconds, double covered) {
        if (count == samples.length) samples = Arrays.copyOf(samples, count * 2);
        samples[count++] = seconds;
        coveredSeconds += covered;
    }

    public int count() { return count; }

    /** Device time the samples measured in total (a graph sample covers every launch it replays). */
    public double coveredSeconds() { return coveredSeconds; }

    public double[] samples() { return Arrays.copyOf(samples, count); }

    /**
     * Relative noise of the median. Recomputed (a sort) only when the stream grew by 5% since the
     * last computation, so checking after every sample costs O(log n) sorts per decade of samples.
     */
    public double noise() {
        if (noiseAt < 0 || count >= noiseAt + Math.max(1, noiseAt / 20)) {
            noise = noise(0, count);
            noiseAt = count;
        }
        return noise;
    }

    /** Noise over every sample now, without the 5% grace (for the record). */
    public double finalNoise() {
        noise = noise(0, count);
        noiseAt = count;
        return noise;
    }

    /**
     * Whether the first and second halves' medians differ by more than {@code bound} (relative)
     * and by more than their confidence intervals allow: the stream is drifting, not converging.
     * Like {@link #noise()} it is recomputed only when the stream grew by 5%.
     */
    public boolean drifting(double bound) {
        if (driftAt < 0 || count >= driftAt + Math.max(1, driftAt / 20)) {
            drift = drifting(bound, count);
            driftAt = count;
        }
        return drift;
    }

    private boolean drifting(double bound, int count) {
        if (count < 20) return false;
        int half = count / 2;
        double[] a = interval(0, half), b = interval(half, count);
        double mid = (a[1] + b[1]) / 2;
        double gap = Math.abs(a[1] - b[1]);
        boolean separated = a[2] < b[0] || b[2] < a[0];
        return separated && gap > bound * Math.abs(mid);
    }

    private double noise(int from, int to) {
        if (to - from < 2) return Double.POSITIVE_INFINITY;
        double[] ci = interval(from, to);
        if (ci[1] == 0) return ci[2] - ci[0] == 0 ? 0 : Double.POSITIVE_INFINITY;
        return (ci[2] - ci[0]) / 2 / Math.abs(ci[1]);
    }

    /** {lower, median, upper} of the median's 95% interval over samples[from, to). */
    private double[] interval(int from, int to) {
        double[] s = Arrays.copyOfRange(samples, from, to);
        Arrays.sort(s);
        int n = s.length;
        double spread = Z95 * Math.sqrt(n) / 2;
        int lo = (int) Math.max(0, Math.floor(n / 2.0 - spread));
        int hi = (int) Math.min(n - 1, Math.ceil(n / 2.0 + spread));
        return new double[]{s[lo], Summary.percentile(s, 50), s[hi]};
    }
}
