package gluelab.workflow.stack;

import gluelab.ops.Pass;
import gluelab.tensor.DType;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What every number of a stack was measured under: device, model, dtype, passes, how samples were
 * taken, and how many fresh processes each confirmed number is the median of: {@code processes} that
 * finished, and {@code fewer} the rows whose median is of fewer (a process failed there, or was
 * dropped as slower than the best), each named with its count, so the line never claims more;
 * {@code rows} the measured rows in all (0: not known, as in a stack written before it was kept), so
 * a line whose every row kept fewer says that plainly rather than list them under "median of 3".
 */
public record Conditions(String device, String model, DType dtype, List<Pass> passes, String timing, int processes, List<Fewer> fewer, int rows) {
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
        if (rows < 0) throw new IllegalArgumentException("rows must be >= 0 (0: not known), got " + rows);
        if (rows > 0 && fewer.size() > rows) throw new IllegalArgumentException(fewer.size() + " rows of fewer processes, but only " + rows + " rows");
    }

    /** Every row the median of all {@code processes}. */
    public Conditions(String device, String model, DType dtype, List<Pass> passes, String timing, int processes) {
        this(device, model, dtype, passes, timing, processes, List.of(), 0);
    }

    /** The fewest processes behind any row. */
    public int fewest() { return fewer.stream().mapToInt(Fewer::processes).min().orElse(processes); }

    /**
     * "H200, anchor-h200, bf16, fwd+bwd, cold samples, median of 3 fresh processes (1 for rope at 32 tokens, normal launch)"; when
     * no row kept all of them, "..., 1 fresh process per row (of 3 that finished)".
     */
    public String describe() {
        String head = device + ", " + model + ", " + dtype.id() + ", " + passes.stream().map(Pass::id).collect(Collectors.joining("+")) + ", " + timing;
        String each = fewer.stream().map(f -> f.processes() + " for " + f.row()).collect(Collectors.joining(", "));
        if (rows > 0 && fewer.size() == rows) {
            int most = fewer.stream().mapToInt(Fewer::processes).max().orElseThrow();
            if (most > fewest()) return head + ", fewer fresh processes per row than the " + processes + " that finished (" + each + ")";
            return head + ", " + (most == 1 ? "1 fresh process" : "median of " + most + " fresh processes") + " per row (of " + processes + " that finished)";
        }
        return head + (processes == 1 ? ", one process" : ", median of " + processes + " fresh processes") + (fewer.isEmpty() ? "" : " (" + each + ")");
    }
}
