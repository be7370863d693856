package gluelab.device.cuda;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * An analyst's own CUDA C kernel (a notebook's %%cuda cell or a .cu file), compiled for the device
 * through the same cache as the catalogue, launched with buffers and scalars, and benchmarked
 * against its floor like a catalogue op.
 */
public final class UserKernel {
    private final CudaDevice device;
    private final String name;
    private final CUfunction function = new CUfunction();
    private final double compileMillis;
    private final String origin;

    private UserKernel(CudaDevice device, String source, String name) {
        this.device = device;
        this.name = name;
        device.makeCurrent();
        int before = device.compileLog().size();
        byte[] cubin = device.cache().cubin(source, name + ".cu", device.facts().extras().get("arch"), CudaKernels.OPTIONS);
        var entry = device.compileLog().get(before);
        compileMillis = entry.millis();
        origin = entry.origin();
        CUmodule module = new CUmodule();
        JCudaDriver.cuModuleLoadData(module, cubin);
        try {
            JCudaDriver.cuModuleGetFunction(function, module, name);
        } catch (jcuda.CudaException e) {
            throw new IllegalArgumentException("the source compiled but has no extern \"C\" __global__ function named '" + name + "'", e);
        }
    }

    /** Compiles {@code source} and finds kernel {@code name} in it; the device must be a CUDA device. */
    public static UserKernel compile(Device device, String source, String name) {
        if (!(device instanceof CudaDevice cuda)) {
            throw new IllegalStateException("user CUDA kernels need a GPU; the current device is " + device.id() + " (no GPU is present or selected)");
        }
        return new UserKernel(cuda, source, name);
    }

    public String name() { return name; }

    public double compileMillis() { return compileMillis; }

    /** "compiled", "disk" or "memory": where the cubin came from. */
    public String compileOrigin() { return origin; }

    /**
     * A launch of grid x block threads with arguments in the kernel's order: Buffer (a pointer),
     * Long (long long), Integer (int), Float (float), Double (double).
     */
    public UserLaunch launch(int grid, int block, Object... args) {
        if (grid < 1 || block < 1 || block > 1024) throw new IllegalArgumentException("bad launch shape grid " + grid + ", block " + block);
        KernelLaunch.Args a = new KernelLaunch.Args();
        long bytes = 0;
        for (int i = 0; i < args.length; i++) {
            Object o = args[i];
            switch (o) {
                case Buffer b -> {
                    a.ptr(CudaDevice.cuda(b));
                    bytes += b.spec().bytes();
                }
                case Long v -> a.i64(v);
                case Integer v -> a.i32(v);
                case Float v -> a.f32(v);
                case Double v -> a.f64(v);
                case null, default -> throw new IllegalArgumentException("argument " + i + " of " + name + " must be a Buffer, Long, Integer, Float or Double, got "
                        + (o == null ? "null" : o.getClass().getSimpleName()));
            }
        }
        KernelLaunch k = a.launchFunction(name, function, grid, block);
        return new UserLaunch(name, new CudaProgram(device).add(k), bytes);
    }

    /** A launch of a user kernel; {@code bufferBytes} (every buffer argument's size) is its default floor traffic. */
    public record UserLaunch(String name, Launch launch, long bufferBytes) implements gluelab.bench.KernelBenchmark.Subject {
        @Override public void run() { launch.run(); }

        @Override public int kernels() { return 1; }

        @Override public long scratchBytes() { return 0; }
    }
}
