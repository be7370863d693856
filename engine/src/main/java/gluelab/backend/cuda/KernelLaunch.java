package gluelab.backend.cuda;

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

    /** A loaded kernel entry point, its name and its declared parameters (null: not checked). */
    record Function(String name, CUfunction function, KernelSignature signature) {}

    void run(CUstream stream) {
        JCudaDriver.cuLaunchKernel(function, grid, 1, 1, block, blockY, 1, sharedBytes, stream, params, null);
    }

    /**
     * Builds kernel arguments in declaration order; types must match the C signature exactly. The
     * named forms record each parameter's name, checked against the kernel's declaration at
     * launch where the function carries one ({@link KernelSignature}).
     */
    static final class Args {
        private final List<NativePointerObject> list = new ArrayList<>();
        private final List<KernelSignature.Param> bound = new ArrayList<>();

        private Args add(NativePointerObject v, KernelSignature.Kind kind, String name) {
            list.add(v);
            bound.add(new KernelSignature.Param(kind, name));
            return this;
        }

        Args ptr(CudaBuffer b) { return ptr(null, b); }

        Args ptr(String name, CudaBuffer b) { return add(Pointer.to(b.ptr()), KernelSignature.Kind.PTR, name); }

        Args ptr(CUdeviceptr p) { return add(Pointer.to(p), KernelSignature.Kind.PTR, null); }

        /** A pointer parameter the kernel does not read in this form; a null buffer passes one too. */
        Args nullPtr() { return nullPtr(null); }

        Args nullPtr(String name) { return add(Pointer.to(new CUdeviceptr()), KernelSignature.Kind.PTR, name); }

        /** {@code b}, or a null pointer where the form has none. */
        Args ptrOrNull(String name, CudaBuffer b) { return b == null ? nullPtr(name) : ptr(name, b); }

        Args i64(long v) { return i64(null, v); }

        Args i64(String name, long v) { return add(Pointer.to(new long[]{v}), KernelSignature.Kind.I64, name); }

        Args i32(int v) { return i32(null, v); }

        Args i32(String name, int v) { return add(Pointer.to(new int[]{v}), KernelSignature.Kind.I32, name); }

        Args f32(float v) { return f32(null, v); }

        Args f32(String name, float v) { return add(Pointer.to(new float[]{v}), KernelSignature.Kind.F32, name); }

        Args f64(double v) { return add(Pointer.to(new double[]{v}), KernelSignature.Kind.F64, null); }

        List<KernelSignature.Param> bound() { return List.copyOf(bound); }

        KernelLaunch launchFunction(String name, CUfunction function, int grid, int block) {
            return new KernelLaunch(name, function, Math.max(1, grid), block, 1, 0, Pointer.to(list.toArray(NativePointerObject[]::new)));
        }

        KernelLaunch launch(Function f, int grid, int block) { return launch(f, grid, block, 0); }

        /** A launch with {@code sharedBytes} of dynamic shared memory (the function's limit raised to it beforehand). */
        KernelLaunch launch(Function f, int grid, int block, int sharedBytes) {
            if (f.signature() != null) f.signature().check(bound);
            return new KernelLaunch(f.name(), f.function(), Math.max(1, grid), block, 1, sharedBytes, Pointer.to(list.toArray(NativePointerObject[]::new)));
        }

        KernelLaunch launch(CudaKernels kernels, String name, int grid, int block) {
            return launch2d(kernels, name, grid, block, 1);
        }

        KernelLaunch launch2d(CudaKernels kernels, String name, int grid, int blockX, int blockY) {
            return new KernelLaunch(name, kernels.function(name, bound), Math.max(1, grid), blockX, blockY, 0, Pointer.to(list.toArray(NativePointerObject[]::new)));
        }
    }
}
