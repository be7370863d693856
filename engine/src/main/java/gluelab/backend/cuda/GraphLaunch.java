package gluelab.backend.cuda;

import gluelab.device.Launch;
import jcuda.driver.*;

/**
 * A CUDA graph holding {@code repeats} back-to-back runs of a launch: one replay runs them all, so
 * per-launch host cost disappears (workflow step 7: a win that disappears under graphs was host time).
 */
final class GraphLaunch implements Launch {
    private final CudaDevice device;
    private final Launch inner;
    private final int repeats;
    private final CUgraph graph = new CUgraph();
    private final CUgraphExec exec = new CUgraphExec();

    GraphLaunch(CudaDevice device, Launch inner, int repeats) {
        this.device = device;
        this.inner = inner;
        this.repeats = repeats;
        device.makeCurrent();
        JCudaDriver.cuStreamBeginCapture(device.stream(), CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
        try {
            for (int i = 0; i < repeats; i++) inner.run();
        } finally {
            JCudaDriver.cuStreamEndCapture(device.stream(), graph);
        }
        JCudaDriver.cuGraphInstantiate(exec, graph, 0);
    }

    @Override public void run() {
        device.makeCurrent();
        JCudaDriver.cuGraphLaunch(exec, device.stream());
    }

    @Override public int kernels() { return inner.kernels(); }

    @Override public int repeats() { return repeats; }

    @Override public long scratchBytes() { return inner.scratchBytes(); }

    @Override public void close() {
        device.makeCurrent();
        JCudaDriver.cuGraphExecDestroy(exec);
        JCudaDriver.cuGraphDestroy(graph);
    }
}
