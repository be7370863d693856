package gluelab.timing;

/**
 * How to time one measurement: mode, warm-up (per group of subjects timed together), stop rule,
 * the batch size of hot samples, and the device time a cold sample covers at least: a cold launch
 * shorter than {@code coldSampleSeconds} is timed several times per sample (each after its own
 * flush) and the sample is their mean (see {@link Harness}).
 */
public record TimingConfig(Mode mode, double warmupSeconds, StopRule stop, int hotBatch, double coldSampleSeconds) {
    /** A cold sample covers at least 100 us of device time: 2-15 launches of a 7-50 us kernel. */
    public static final double COLD_SAMPLE_SECONDS = 100e-6;

    public TimingConfig(Mode mode, double warmupSeconds, StopRule stop, int hotBatch) {
        this(mode, warmupSeconds, stop, hotBatch, COLD_SAMPLE_SECONDS);
    }

    public TimingConfig {
        if (mode == null) throw new IllegalArgumentException("timing mode is missing");
        if (!(warmupSeconds >= 0) || Double.isInfinite(warmupSeconds)) throw new IllegalArgumentException("warm-up must be a finite number >= 0 s, got " + warmupSeconds);
        if (stop == null) throw new IllegalArgumentException("stop rule is missing");
        if (hotBatch < 1) throw new IllegalArgumentException("hot batch must be >= 1, got " + hotBatch);
        if (!(coldSampleSeconds >= 0) || Double.isInfinite(coldSampleSeconds)) {
            throw new IllegalArgumentException("cold sample time must be a finite number >= 0 s, got " + coldSampleSeconds);
        }
    }

    /** One bench: cold samples, 0.2 s warm-up, {@link StopRule#standard()}. */
    public static TimingConfig defaults() { return new TimingConfig(Mode.COLD, 0.2, StopRule.standard(), 10); }

    /** Screening a catalogue: cold samples, 0.05 s warm-up, {@link StopRule#quick()}. */
    public static TimingConfig quick() { return new TimingConfig(Mode.COLD, 0.05, StopRule.quick(), 10); }

    public TimingConfig withMode(Mode m) { return new TimingConfig(m, warmupSeconds, stop, hotBatch, coldSampleSeconds); }

    public TimingConfig withStop(StopRule s) { return new TimingConfig(mode, warmupSeconds, s, hotBatch, coldSampleSeconds); }

    public TimingConfig withColdSampleSeconds(double seconds) { return new TimingConfig(mode, warmupSeconds, stop, hotBatch, seconds); }
}
