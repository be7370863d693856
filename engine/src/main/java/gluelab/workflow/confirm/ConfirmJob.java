package gluelab.workflow.confirm;

import gluelab.calibrate.Calibration;
import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.timing.TimingConfig;

import java.util.List;

/**
 * What every process of a confirmation runs: the comparisons on one model, dtype and timing, on
 * the device named by {@code device}, with floors from {@code calibration} (the lab's, so the
 * processes do not calibrate again). Written as JSON for the worker processes.
 */
public record ConfirmJob(ModelSpec spec, List<Comparison> comparisons, DType dtype, TimingConfig timing, String device, Calibration calibration) {
    public ConfirmJob {
        if (comparisons == null || comparisons.isEmpty()) throw new IllegalArgumentException("a confirmation needs at least one comparison");
        comparisons = List.copyOf(comparisons);
    }
}
