package gluelab.timing;

import java.util.Arrays;

/** Summary statistics of a sample set, in seconds. Percentiles interpolate linearly. */
public record Summary(int count, double min, double p20, double median, double mean, double p80, double max, double relStdev) {
    public static Summary of(double[] samples) {
        if (samples.length == 0) throw new IllegalArgumentException("no samples to summarise");
        double[] s = samples.clone();
        Arrays.sort(s);
        double sum = 0;
        for (double v : s) sum += v;
        double mean = sum / s.length, ss = 0;
        for (double v : s) ss += (v - mean) * (v - mean);
        double rel = s.length < 2 || mean == 0 ? 0 : Math.sqrt(ss / (s.length - 1)) / mean;
        return new Summary(s.length, s[0], percentile(s, 20), percentile(s, 50), mean, percentile(s, 80), s[s.length - 1], rel);
    }

    static double percentile(double[] sorted, double p) {
        double pos = p / 100.0 * (sorted.length - 1);
        int lo = (int) Math.floor(pos), hi = (int) Math.ceil(pos);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }
}
