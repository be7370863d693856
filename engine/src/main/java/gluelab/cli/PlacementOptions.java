package gluelab.cli;

import gluelab.bench.BenchPlan;
import picocli.CommandLine.Option;

/** The buffer-placement option of a command that measures (bench, demo); absent, the device's own count. */
public final class PlacementOptions {
    @Option(names = "--placements", paramLabel = "N",
            description = "buffer placements a small group's direct rows rotate through, 1 = off (default: the device's, 8 on CUDA, 1 on the CPU)")
    Integer placements;

    /** Fails, naming the option, when N is out of range (before any work starts). */
    void check() { if (placements != null) BenchPlan.placementsOption(placements); }

    /** The builder with this option applied. */
    BenchPlan.Builder applyTo(BenchPlan.Builder b) { return placements == null ? b : b.placements(placements); }
}
