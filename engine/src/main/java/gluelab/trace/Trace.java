package gluelab.trace;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A profiler trace as totals: per distinct kernel name ({@code kernels}, in the order each first
 * launched), copies and sets, the host side and GPU idle gaps ({@code host}), and per op and input
 * shapes for ideal times ({@code ops}, record_shapes=True only), and per CPU op name its calls and
 * total (inclusive) time ({@code cpuOps}, every cpu_op event, as torch's key_averages() counts them:
 * {@link OpCalls}), and per op and input shapes the tensor inputs a FunctionEvent's shapes leave out
 * ({@code opInputs}: 0-dim tensors and tensor lists, {@link OpInputs}). No launch is kept, so its size
 * follows the distinct kernels, ops and steps, not the launches. {@code backward} says whether any
 * CPU op was a backward op. {@code unknownKinds} counts events of kinds gluelab does not use;
 * {@code warnings} counts problems in otherwise sound data (an event without a name, a negative
 * duration), each with its first example, so nothing is silently dropped.
 */
public record Trace(Path file, long bytesRead, String device, boolean recordShapes, boolean backward, int kernelCount,
                    double kernelMicros, List<KernelTotals> kernels, GpuMem gpuMem, HostAnalysis host,
                    List<ShapeFloors.OpTotal> ops, List<Events.Step> steps, Map<String, Integer> unknownKinds,
                    Map<String, Integer> warnings, Map<String, String> warningExamples, List<CpuOpTime> cpuOps, List<OpInputs> opInputs) {
    public Trace {
        opInputs = List.copyOf(opInputs);
    }

    /** One CPU op name over the trace: events and their summed durations (inclusive of the ops they call), microseconds. */
    public record CpuOpTime(String name, int count, double totalUs) {}

    /** Copies and sets on the GPU: count and total time of each. */
    public record GpuMem(int memcpyCount, double memcpyUs, int memsetCount, double memsetUs) {
        public int count() { return memcpyCount + memsetCount; }

        public double totalUs() { return memcpyUs + memsetUs; }
    }

    public String name() { return file.getFileName().toString(); }
}
