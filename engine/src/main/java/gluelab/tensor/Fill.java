package gluelab.tensor;

import java.util.stream.LongStream;

/**
 * Deterministic, parallel fills. Values come from a counter-based hash of (seed, index), so a
 * tensor's contents depend only on its seed and not on thread count; large inputs fill fast.
 */
public final class Fill {
    private Fill() {}

    /** Uniform in [lo, hi). An interrupt of the caller stops the fill between chunks (a 16k-token input takes about a second). */
    public static void uniform(Tensor t, long seed, double lo, double hi) {
        long n = t.elements();
        long chunk = 1 << 16;
        Thread caller = Thread.currentThread();
        LongStream.range(0, (n + chunk - 1) / chunk).parallel().forEach(c -> {
            if (caller.isInterrupted()) throw new java.util.concurrent.CancellationException("fill interrupted");
            long end = Math.min(n, (c + 1) * chunk);
            for (long i = c * chunk; i < end; i++) {
                t.setDouble(i, lo + (hi - lo) * unit(seed, i));
            }
        });
    }

    /** A value in [0, 1) from (seed, index): splitmix64 finaliser. */
    public static double unit(long seed, long index) {
        long z = seed * 0x9E3779B97F4A7C15L + index + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * 0x1.0p-53;
    }
}
