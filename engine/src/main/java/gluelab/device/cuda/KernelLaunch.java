package gluelab.device.cuda;

import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

import java.util.ArrayList;
import java.util.List;

/** One kernel launch with its arguments bound once; run() enqueues it on a stream. */
final class KernelLaunch {
    private final String name;
    private final CUfunction function;
    private final int grid, block, blockY, sharedBytes;
    private final Pointer params;

    private KernelLaunch(String name, CUfunction function, int grid, int block, int blockY, int sharedBytes, Pointer params) {
        this.name = name;
        this.function = function;
        this.grid = grid;
        this.block = block;
        this.blockY = blockY;
        this.sharedBytes = sharedBytes;
        this.params = params;
    }

    String name() { return name; }

    /** A loaded kernel entry point and its name. */
    record Function(String name, CUfunction function) {}

    void run(CUstream stream) {
        JCudaDriver.cuLaunchKernel(function, grid, 1, 1, block, blockY, 1, sharedBytes, stream, params, null);
    }

    /** Builds kernel arguments in declaration order; types must match the C signature exactly. */
    static final class Args {
        private final List<NativePointerObject> list = new ArrayList<>();

        Args ptr(CudaBuffer b) { list.add(Pointer.to(b.ptr())); return this; }

        Args ptr(CUdeviceptr p) { list.add(Pointer.to(p)); return this; }

        Args nullPtr() { list.add(Pointer.to(new CUdeviceptr())); return this; }

        Args i64(long v) { list.add(Pointer.to(new long[]{v})); return this; }

        Args i32(int v) { list.add(Pointer.to(new int[]{v})); return this; }

        Args f32(float v) { list.add(Pointer.to(new float[]{v})); return this; }

        Args f64(double v) { list.add(Pointer.to(new double[]{v})); return this; }

        KernelLaunch launchFunction(String name, CUfunction function, int grid, int block) {
            return new KernelLaunch(name, function, Math.max(1, grid), block, 1, 0, Pointer.to(list.toArray(NativePointerObject[]::new)));
        }

        KernelLaunch launch(Function f, int grid, int block) { return launchFunction(f.name(), f.function(), grid, block); }

        /** A launch with {@code sharedBytes} of dynamic shared memory (the function's limit raised to it beforehand). */
        KernelLaunch launch(Function f, int grid, int block, int sharedBytes) {
            return new KernelLaunch(f.name(), f.function(), Math.max(1, grid), block, 1, sharedBytes, Pointer.to(list.toArray(NativePointerObject[]::new)));
        }

        KernelLaunch launch(CudaKernels kernels, String name, int grid, int block) {
            return launch2d(kernels, name, grid, block, 1);
        }

        KernelLaunch launch2d(CudaKernels kernels, String name, int grid, int blockX, int blockY) {
            return new KernelLaunch(name, kernels.function(name), Math.max(1, grid), blockX, blockY, 0, Pointer.to(list.toArray(NativePointerObject[]::new)));
        }
    }
}
