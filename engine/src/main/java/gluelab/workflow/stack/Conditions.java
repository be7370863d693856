package gluelab.workflow.stack;

import gluelab.ops.Pass;
import gluelab.tensor.DType;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What every number of a stack was measured under: device, model, dtype, passes, how samples were
 * taken, and how many fresh processes each confirmed number is the median of: {@code processes} that
 * finished, and {@code fewer} the rows whose median is of fewer (a process failed there, or was
 * dropped as slower than the best), each named with its count, so the line never claims more.
 */
public record Conditions(String device, String model, DType dtype, List<Pass> passes, String timing, int processes, List<Fewer> fewer) {
    /** A row of the stack whose numbers are the median of {@code processes} fresh processes, fewer than the stack's. */
    public record Fewer(String row, int processes) {
        public Fewer {
            if (row == null || row.isBlank()) throw new IllegalArgumentException("a row with fewer processes needs its name");
            if (processes <= 0) throw new IllegalArgumentException("row " + row + ": processes must be >= 1, got " + processes);
        }
    }

    public Conditions {
        if (device == null || device.isBlank()) throw new IllegalArgumentException("conditions need the device");
        if (model == null || model.isBlank()) throw new IllegalArgumentException("conditions need the model");
        if (dtype == null) throw new IllegalArgumentException("conditions need the dtype");
        if (passes == null || passes.isEmpty()) throw new IllegalArgumentException("conditions need the passes (fwd, bwd)");
        passes = List.copyOf(passes);
        if (timing == null || timing.isBlank()) throw new IllegalArgumentException("conditions need the timing mode (e.g. cold samples)");
        if (processes <= 0) throw new IllegalArgumentException("processes must be >= 1, got " + processes);
        fewer = fewer == null ? List.of() : List.copyOf(fewer);
        for (Fewer f : fewer) {
            if (f.processes() >= processes) throw new IllegalArgumentException("row " + f.row() + ": " + f.processes() + " processes is not fewer than the stack's " + processes);
        }
    }

    /** Every row the median of all {@code processes}. */
    public Conditions(String device, String model, DType dtype, List<Pass> passes, String timing, int processes) {
        this(device, model, dtype, passes, timing, processes, List.of());
    }

    /** The fewest processes behind any row. */
    public int fewest() { return fewer.stream().mapToInt(Fewer::processes).min().orElse(processes); }

    /** "H200, anchor-h200, bf16, fwd+bwd, cold samples, median of 3 fresh processes (1 for rope at 32 tokens, normal launch)". */
    public String describe() {
        return device + ", " + model + ", " + dtype.id() + ", " + passes.stream().map(Pass::id).collect(Collectors.joining("+")) + ", " + timing
                + (processes == 1 ? ", one process" : ", median of " + processes + " fresh processes")
                + (fewer.isEmpty() ? "" : " (" + fewer.stream().map(f -> f.processes() + " for " + f.row()).collect(Collectors.joining(", ")) + ")");
    }
}
