package gluelab.trace;

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

    /** {@code syncs}: the sync calls that count (those inside steps when the trace has steps), in file order. */
    static HostAnalysis of(int launches, List<String> syncs, GpuIdle.Result gaps) {
        return new HostAnalysis(launches, syncs.size(), syncs.stream().distinct().toList(), gaps.busyUs(), gaps.windowUs(), gaps.idleUs(),
                gaps.gapsOver10us(), gaps.largestGapUs());
    }
}
