package gluelab.workflow.confirm;

import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.timing.Measurement;

/**
 * One variant of a comparison timed as a whole forward + backward step in one process, launched
 * normally ({@link Replay#DIRECT}) or replayed as one captured CUDA graph ({@link Replay#GRAPH}).
 * The raw samples stay in the measurement.
 */
public record Timed(String op, long tokens, Variant variant, Replay replay, double idealUs, int kernels, Measurement measurement) {
    public double medianUs() { return measurement.medianMicros(); }

    boolean is(Comparison c, Variant v, Replay r) { return op.equals(c.op()) && tokens == c.tokens() && variant == v && replay == r; }
}
