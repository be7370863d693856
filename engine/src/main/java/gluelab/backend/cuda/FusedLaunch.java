package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.tensor.DType;
import jcuda.driver.JCudaDriver;

import java.util.Map;

/**
 * What a family's launch needs: the instance, its bound buffers, the program to add launches to,
 * the device, the config, its loaded kernel, its dynamic shared memory and {@code wave}, the blocks
 * of this kernel resident on the whole device at once (SMs x blocks per SM, as the driver's
 * occupancy calculator gives them), which a looping kernel's grid does not exceed.
 */
record FusedLaunch(OpInstance in, Map<String, CudaBuffer> buffers, CudaProgram program, CudaDevice device, KernelConfig config,
                   KernelLaunch.Function kernel, int sharedBytes, int wave) {
    CudaBuffer t(String name) {
        CudaBuffer b = buffers.get(name);
        if (b == null) throw new IllegalArgumentException(in.label() + ": no tensor '" + name + "' bound (have " + buffers.keySet() + ")");
        return b;
    }

    int threads() { return config.get("threads"); }

    int param(String name, int otherwise) { return config.params().getOrDefault(name, otherwise); }

    void add(KernelLaunch.Args a, int grid) { program.add(a.launch(kernel, grid, threads(), sharedBytes)); }

    /**
     * dwfin=1: the backward finishes its weight gradient itself, after a grid barrier (the grids are
     * one resident wave at most, so every block runs at once and the barrier cannot wait on a block
     * that has no SM).
     */
    boolean finishesDw() { return param("dwfin", 0) == 1; }

    /** The grid barrier's two counters (arrivals, departures), zeroed here once; the kernel leaves them at zero. */
    CudaBuffer gridBarrier() {
        CudaBuffer bar = program.scratch("grid_barrier", DType.I32, 2);
        JCudaDriver.cuMemsetD32(bar.ptr(), 0, 2);
        return bar;
    }

    /** Elementwise kernels: one block per tile of threads x vec x unroll elements. */
    int tiles(long n) {
        long tile = (long) threads() * config.get("vec") * config.get("unroll");
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (n + tile - 1) / tile));
    }
}
