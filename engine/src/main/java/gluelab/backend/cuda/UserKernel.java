package gluelab.backend.cuda;

import gluelab.timing.TimedLaunch;
import gluelab.device.Device;
import gluelab.backend.cuda.WorkerProtocol.Reply;
import gluelab.timing.TimingConfig;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * An analyst's own CUDA C kernel (a notebook's %%cuda cell or a .cu file), compiled for the device
 * through the same cache as the catalogue, launched with buffers and scalars, and benchmarked
 * against its floor like a catalogue op.
 *
 * <p>It runs in gluelab's kernel worker process ({@link KernelSandbox}): a fault in it (an illegal
 * address, say) raises {@link KernelFaultException} and leaves the device and the session usable.
 */
public final class UserKernel {
    private final CudaDevice device;
    private final String name;
    private final String key;
    private final double compileMillis;
    private final String origin;

    private UserKernel(CudaDevice device, String source, String name) {
        this.device = device;
        this.name = name;
        this.key = name + "-" + digest(source);
        Reply r = device.sandbox().compile(key, name, source);
        compileMillis = r.compileMillis();
        origin = r.origin();
    }

    /** Compiles {@code source} and finds kernel {@code name} in it; the device must be a CUDA device. */
    /** Whether analysts' CUDA kernels run on {@code device} (they need a GPU), so callers can skip with a reason instead of failing. */
    public static boolean runsOn(Device device) { return device instanceof CudaDevice; }

    public static UserKernel compile(Device device, String source, String name) {
        if (!(device instanceof CudaDevice cuda)) {
            throw new IllegalStateException("user CUDA kernels need a GPU; the current device is " + device.id() + " (no GPU is present or selected)");
        }
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("a kernel name must be a C identifier, got '" + name + "'");
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
        long bytes = 0;
        for (int i = 0; i < args.length; i++) bytes += WorkerProtocol.Arg.of(args[i], i, name, device).bytes();
        return new UserLaunch(this, grid, block, List.of(args), bytes);
    }

    /**
     * A launch of a user kernel; {@code bufferBytes} (every buffer argument's size) is its default
     * floor traffic. {@link #run()} runs it once to completion in the worker.
     */
    public record UserLaunch(UserKernel kernel, int grid, int block, List<Object> args, long bufferBytes)
            implements TimedLaunch.Subject, TimedLaunch.TimedElsewhere {
        @Override public String name() { return kernel.name; }

        @Override public void run() { kernel.device.sandbox().run(kernel.key, kernel.name, grid, block, args); }

        @Override public TimedLaunch.Timed time(String label, long bytes, TimingConfig timing) {
            return kernel.device.sandbox().time(kernel.key, kernel.name, grid, block, args, label, bytes, timing);
        }

        @Override public int kernels() { return 1; }

        @Override public long scratchBytes() { return 0; }
    }

    private static String digest(String source) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
