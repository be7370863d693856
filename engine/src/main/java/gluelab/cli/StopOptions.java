package gluelab.cli;

import gluelab.bench.BenchPlan;
import picocli.CommandLine.Option;

/**
 * The stop-rule options of a command that measures (bench, demo): each overrides the command's own
 * default (bench: {@code TimingConfig.defaults()}, demo: {@code TimingConfig.quick()}).
 */
public final class StopOptions {
    @Option(names = "--timeout", description = "seconds per measurement at most (default: bench 15, demo 1)")
    Double timeout;

    @Option(names = "--min-time", description = "seconds of device time sampled at least (default: bench 0.1, demo 0.02)")
    Double minTime;

    @Option(names = "--max-noise", converter = UnitNumbers.Percent.class, description = "stop once the median's noise is under this percentage (default: 0.5)")
    Double maxNoise;

    /** Fails, naming the option, when an override is out of range (before any work starts). */
    void check() { BenchPlan.Builder.overridden(gluelab.timing.StopRule.quick(), timeout, minTime, maxNoise); }

    /** The builder with these overrides applied. */
    BenchPlan.Builder applyTo(BenchPlan.Builder b) { return b.stop(timeout, minTime, maxNoise); }
}
