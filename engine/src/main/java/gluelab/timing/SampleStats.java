package gluelab.timing;

/** Running count, sum and variance (Welford) of samples, for the stop rule. */
public final class SampleStats {
    private long count;
    private double mean, m2, sum;

    public void add(double x) {
        count++;
        sum += x;
        double d = x - mean;
        mean += d / count;
        m2 += d * (x - mean);
    }

    public long count() { return count; }

    public double sum() { return sum; }

    public double mean() { return mean; }

    /** Sample standard deviation over the mean; infinite with fewer than two samples. */
    public double relStdev() {
        if (count < 2 || mean == 0) return Double.POSITIVE_INFINITY;
        return Math.sqrt(m2 / (count - 1)) / Math.abs(mean);
    }
}
