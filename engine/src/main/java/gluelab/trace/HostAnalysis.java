package gluelab.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The host side: kernel launches, host syncs (inside steps when steps exist), and GPU idle gaps
 * between consecutive GPU activity (kernels, copies, sets) within the traced window.
 */
public record HostAnalysis(int launches, int syncs, List<String> syncCalls, double gpuBusyUs, double windowUs, double idleUs,
                           int gapsOver10us, double largestGapUs) {
    static final Set<String> LAUNCH = Set.of("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
            "cudaLaunchCooperativeKernel", "cudaGraphLaunch", "cuGraphLaunch");
    static final Set<String> SYNC = Set.of("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cuStreamSynchronize",
            "cuCtxSynchronize", "cuEventSynchronize", "cudaMemcpy", "cuMemcpyDtoH_v2", "cuMemcpyDtoH");

    public double idleFraction() { return windowUs > 0 ? idleUs / windowUs : 0; }

    public static HostAnalysis of(Trace t) {
        int launches = 0;
        List<String> syncs = new ArrayList<>();
        for (Events.ApiCall c : t.apiCalls()) {
            if (LAUNCH.contains(c.name())) launches++;
            boolean inStep = t.steps().isEmpty() || t.steps().stream().anyMatch(s -> s.contains(c.ts()));
            if (inStep && SYNC.contains(c.name())) syncs.add(c.name());
        }
        List<double[]> spans = new ArrayList<>();
        for (Events.Kernel k : t.kernels()) spans.add(new double[]{k.ts(), k.end()});
        for (Events.GpuMem g : t.gpuMem()) spans.add(new double[]{g.ts(), g.end()});
        spans.sort(Comparator.comparingDouble(s -> s[0]));
        double busy = 0, idle = 0, largest = 0, end = Double.NaN, start = Double.NaN;
        int gaps = 0;
        for (double[] s : spans) {
            if (Double.isNaN(end)) {
                start = s[0];
                end = s[1];
                busy += s[1] - s[0];
                continue;
            }
            if (s[0] > end) {
                double gap = s[0] - end;
                idle += gap;
                largest = Math.max(largest, gap);
                if (gap > 10) gaps++;
                busy += s[1] - s[0];
                end = s[1];
            } else if (s[1] > end) {
                busy += s[1] - end;
                end = s[1];
            }
        }
        double window = Double.isNaN(end) ? 0 : end - start;
        return new HostAnalysis(launches, syncs.size(), syncs.stream().distinct().toList(), busy, window, idle, gaps, largest);
    }
}
