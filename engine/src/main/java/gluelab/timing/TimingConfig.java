package gluelab.timing;

/**
 * How to time one measurement: mode, warm-up (per group of subjects timed together), stop rule,
 * and the batch size of hot samples.
 */
public record TimingConfig(Mode mode, double warmupSeconds, StopRule stop, int hotBatch) {
    public TimingConfig {
        if (mode == null) throw new IllegalArgumentException("timing mode is missing");
        if (!(warmupSeconds >= 0) || Double.isInfinite(warmupSeconds)) throw new IllegalArgumentException("warm-up must be a finite number >= 0 s, got " + warmupSeconds);
        if (stop == null) throw new IllegalArgumentException("stop rule is missing");
        if (hotBatch < 1) throw new IllegalArgumentException("hot batch must be >= 1, got " + hotBatch);
    }

    /** One bench: cold samples, 0.2 s warm-up, {@link StopRule#standard()}. */
    public static TimingConfig defaults() { return new TimingConfig(Mode.COLD, 0.2, StopRule.standard(), 10); }

    /** Screening a catalogue: cold samples, 0.05 s warm-up, {@link StopRule#quick()}. */
    public static TimingConfig quick() { return new TimingConfig(Mode.COLD, 0.05, StopRule.quick(), 10); }

    public TimingConfig withMode(Mode m) { return new TimingConfig(m, warmupSeconds, stop, hotBatch); }

    public TimingConfig withStop(StopRule s) { return new TimingConfig(mode, warmupSeconds, s, hotBatch); }
}
