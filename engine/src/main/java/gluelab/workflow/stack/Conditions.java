package gluelab.workflow.stack;

import gluelab.ops.Pass;
import gluelab.tensor.DType;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What every number of a stack was measured under: device, model, dtype, passes, how samples were
 * taken, and how many fresh processes each confirmed number is the median of.
 */
public record Conditions(String device, String model, DType dtype, List<Pass> passes, String timing, int processes) {
    public Conditions {
        if (device == null || device.isBlank()) throw new IllegalArgumentException("conditions need the device");
        if (model == null || model.isBlank()) throw new IllegalArgumentException("conditions need the model");
        if (dtype == null) throw new IllegalArgumentException("conditions need the dtype");
        if (passes == null || passes.isEmpty()) throw new IllegalArgumentException("conditions need the passes (fwd, bwd)");
        passes = List.copyOf(passes);
        if (timing == null || timing.isBlank()) throw new IllegalArgumentException("conditions need the timing mode (e.g. cold samples)");
        if (processes <= 0) throw new IllegalArgumentException("processes must be >= 1, got " + processes);
    }

    /** "H200, anchor-h200, bf16, fwd+bwd, cold samples, median of 3 fresh processes". */
    public String describe() {
        return device + ", " + model + ", " + dtype.id() + ", " + passes.stream().map(Pass::id).collect(Collectors.joining("+")) + ", " + timing
                + (processes == 1 ? ", one process" : ", median of " + processes + " fresh processes");
    }
}
