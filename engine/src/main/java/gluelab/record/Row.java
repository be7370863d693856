package gluelab.record;

import gluelab.check.Correctness;
import gluelab.ops.MeasureKey;
import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.timing.Measurement;
import gluelab.units.Numbers;
import gluelab.units.TimeScale;

import java.util.Locale;

/** One measured op instance with its floor, as stored in a record. correctness may be null. */
public record Row(MeasureKey key, String model, long bytes, long flops, double idealUs, String bound, Measurement measurement,
                  Correctness correctness) {
    public Row {
        if (key == null) throw new IllegalArgumentException("row has no key (op, pass, variant, replay, tokens, dtype)");
        if (measurement == null) throw new IllegalArgumentException("row " + key + " has no measurement");
    }

    public OpId op() { return key.op(); }

    public Pass pass() { return key.pass(); }

    public Variant variant() { return key.variant(); }

    public Replay replay() { return key.replay(); }

    public long tokens() { return key.tokens(); }

    public DType dtype() { return key.dtype(); }

    public double measuredUs() { return measurement.summary().median() * 1e6; }

    public double percentOfFloor() { return 100 * idealUs / measuredUs(); }

    public double achievedGBs() { return bytes / (measuredUs() * 1e-6) / 1e9; }

    /** The one line a devlog (or a notebook's log) keeps for this row. */
    public String describe() {
        var s = measurement.summary();
        // The median and its min share one unit; the ideal takes its own (a 1.4 s eager row beside a 200 us floor).
        TimeScale scale = TimeScale.of(measuredUs());
        return String.format(Locale.ROOT, "%s: median %s %s (min %s, noise %s, n=%d, %s%s), ideal %s, %.1f%% of floor, %d kernels",
                key, scale.number(measuredUs()), scale.symbol(), scale.number(s.min() * 1e6), Numbers.percent(measurement.noise()), s.count(),
                measurement.stopReason().name().toLowerCase(Locale.ROOT), measurement.noisy().map(w -> "; NOISY: " + w).orElse(""),
                TimeScale.of(idealUs).format(idealUs), percentOfFloor(), measurement.kernels());
    }
}
