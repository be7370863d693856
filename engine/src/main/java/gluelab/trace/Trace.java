package gluelab.trace;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A parsed profiler trace. {@code cpuOps} holds the CPU operators with recorded input shapes
 * (record_shapes=True), the ones shape floors use; the others are not kept (they are most of a
 * trace's events), {@code backward} says whether any of them was a backward op. {@code unknownKinds} counts events of kinds gluelab does not use;
 * {@code warnings} counts problems in otherwise sound data (an event without a name, a
 * non-positive duration), each with its first example, so nothing is silently dropped.
 */
public record Trace(Path file, long bytesRead, String device, boolean recordShapes, List<Events.Kernel> kernels,
                    List<Events.GpuMem> gpuMem, List<Events.ApiCall> apiCalls, List<Events.CpuOp> cpuOps,
                    boolean backward, List<Events.Step> steps, Map<String, Integer> unknownKinds, Map<String, Integer> warnings,
                    Map<String, String> warningExamples) {
    public double kernelMicros() {
        double s = 0;
        for (Events.Kernel k : kernels) s += k.dur();
        return s;
    }

    public String name() { return file.getFileName().toString(); }
}
