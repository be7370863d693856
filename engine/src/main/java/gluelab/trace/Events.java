package gluelab.trace;

import java.util.List;

/** The events of a PyTorch profiler trace that outlive their line of JSON (times in microseconds). */
public final class Events {
    private Events() {}

    /**
     * A CPU operator with record_shapes: each input's dims (empty for non-tensors), its type as the
     * profiler writes it ("c10::BFloat16", "float", "Scalar", ...), and concrete scalar values. The
     * reader turns each into its bytes at once ({@link ShapeFloors#bytes}); none is kept.
     */
    public record CpuOp(String name, double ts, double dur, long externalId, List<long[]> inputDims, List<String> inputTypes,
                        List<String> concreteInputs, List<List<long[]>> tensorLists) {
        public boolean hasShapes() { return inputDims != null && !inputDims.isEmpty(); }
    }

    /** A ProfilerStep#N range. */
    public record Step(String name, double ts, double dur) {
        public boolean contains(double t) { return t >= ts && t < ts + dur; }
    }
}
