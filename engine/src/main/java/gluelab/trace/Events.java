package gluelab.trace;

import java.util.List;

/** The events of a PyTorch profiler trace that gluelab uses, as compact records (times in microseconds). */
public final class Events {
    private Events() {}

    /** A GPU kernel. grid and block are {x, y, z}; missing values are -1 or empty. */
    public record Kernel(String name, double ts, double dur, int stream, long correlation, long externalId,
                         int[] grid, int[] block, int registers, int sharedMemory) {
        public double end() { return ts + dur; }
    }

    /** A memcpy or memset on the GPU. */
    public record GpuMem(boolean memset, String name, double ts, double dur, long bytes, long correlation, long externalId) {
        public double end() { return ts + dur; }
    }

    /** A CUDA runtime or driver API call on the host (launches, syncs, copies). */
    public record ApiCall(String name, double ts, double dur, long correlation, long externalId, boolean driver) {}

    /**
     * A CPU operator. With record_shapes: each input's dims (empty for non-tensors), its type as the
     * profiler writes it ("c10::BFloat16", "float", "Scalar", ...), and concrete scalar values.
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
