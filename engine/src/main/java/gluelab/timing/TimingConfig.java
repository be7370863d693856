package gluelab.timing;

/** How to time one measurement: mode, warm-up, stop rule, and the batch size of hot samples. */
public record TimingConfig(Mode mode, double warmupSeconds, StopRule stop, int hotBatch) {
    public TimingConfig {
        if (warmupSeconds < 0) throw new IllegalArgumentException("warm-up must be >= 0 s");
        if (hotBatch < 1) throw new IllegalArgumentException("hot batch must be >= 1");
    }

    public static TimingConfig defaults() { return new TimingConfig(Mode.COLD, 0.2, StopRule.nvbench(), 10); }

    public static TimingConfig quick() { return new TimingConfig(Mode.COLD, 0.05, StopRule.quick(), 10); }

    public TimingConfig withMode(Mode m) { return new TimingConfig(m, warmupSeconds, stop, hotBatch); }

    public TimingConfig withStop(StopRule s) { return new TimingConfig(mode, warmupSeconds, s, hotBatch); }
}
