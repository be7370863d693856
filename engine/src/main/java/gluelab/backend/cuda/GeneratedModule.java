package gluelab.backend.cuda;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * CUDA C that gluelab generated (a fused expression region), compiled through the device's
 * compile cache and run in gluelab's own process like the catalogue (not in the user-kernel worker:
 * the code is gluelab's, not an analyst's work in progress).
 */
public final class GeneratedModule {
    private final CudaDevice device;
    private final CUmodule module = new CUmodule();
    private final Map<String, CUfunction> functions = new ConcurrentHashMap<>();

    private GeneratedModule(CudaDevice device, String source, String sourceName) {
        this.device = device;
        device.makeCurrent();
        byte[] cubin = device.cache().cubin(gluelab.backend.cuda.compile.SourceUnit.of(sourceName, source), device.facts().extras().get("arch"), CudaKernels.OPTIONS);
        device.guard(() -> JCudaDriver.cuModuleLoadData(module, cubin));
    }

    public static GeneratedModule compile(Device device, String source, String sourceName) {
        if (!(device instanceof CudaDevice cuda)) throw new IllegalArgumentException("generated CUDA needs a CUDA device, got " + device.id());
        return new GeneratedModule(cuda, source, sourceName);
    }

    /** Streaming multiprocessors of the device: what grid caps are counted in. */
    public int sms() { return device.sms(); }

    /** Blocks of {@code kernel} that are resident on one SM at once with {@code block} threads, as the driver computes from its registers and shared memory (at least 1). */
    public int residentBlocks(String kernel, int block) {
        int[] blocks = new int[1];
        CUfunction f = function(kernel);
        device.guard(() -> JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block, 0));
        return Math.max(1, blocks[0]);
    }

    private CUfunction function(String kernel) {
        return functions.computeIfAbsent(kernel, n -> {
            CUfunction fn = new CUfunction();
            device.guard(() -> JCudaDriver.cuModuleGetFunction(fn, module, n));
            return fn;
        });
    }

    /** A launch of {@code kernel} with arguments in its C order: Buffer, Long, Integer, Float, Double. */
    public Launch launch(String kernel, int grid, int block, List<Object> args) {
        KernelLaunch.Args a = new KernelLaunch.Args();
        for (Object o : args) {
            switch (o) {
                case Buffer buf -> a.ptr(CudaDevice.cuda(buf));
                case Long v -> a.i64(v);
                case Integer v -> a.i32(v);
                case Float v -> a.f32(v);
                case Double v -> a.f64(v);
                default -> throw new IllegalArgumentException("kernel " + kernel + ": unsupported argument " + o);
            }
        }
        CUfunction f = function(kernel);
        return new CudaProgram(device).add(a.launchFunction(kernel, f, grid, block));
    }
}
