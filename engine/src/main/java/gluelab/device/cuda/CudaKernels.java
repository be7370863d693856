package gluelab.device.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.device.Tunable;
import gluelab.device.cuda.compile.CompileCache;
import gluelab.device.cuda.compile.CompileException;
import gluelab.device.cuda.compile.CudaCompiler;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The catalogue's kernels: glue.cu from the kernels module's resources, compiled through the cache
 * and loaded. The base module holds the eager primitives and calibration kernels; each fused
 * kernel configuration is a module of its own (glue.cu compiled with that config's defines).
 */
final class CudaKernels {
    static final String SOURCE_NAME = "glue.cu";
    // Accepted by both NVRTC and nvcc; both optimise fully by default.
    static final List<String> OPTIONS = List.of("-std=c++17");

    private final CompileCache cache;
    private final String arch;
    private final String source;
    private final Map<String, CUfunction> functions = new ConcurrentHashMap<>();
    private final Map<List<String>, KernelLaunch.Function> configured = new ConcurrentHashMap<>();
    private CUmodule module;

    CudaKernels(CompileCache cache, String arch) {
        this.cache = cache;
        this.arch = arch;
        this.source = readSource();
        load();
    }

    String source() { return source; }

    String arch() { return arch; }

    /**
     * glue.cu from $GLUELAB_KERNEL_SOURCES when set (kernel authors iterate without rebuilding),
     * else from the kernels jar.
     */
    static String readSource() {
        String dir = System.getenv("GLUELAB_KERNEL_SOURCES");
        if (dir != null && !dir.isBlank()) {
            try {
                return java.nio.file.Files.readString(java.nio.file.Path.of(dir, SOURCE_NAME));
            } catch (IOException e) {
                throw new IllegalStateException("GLUELAB_KERNEL_SOURCES is set but " + dir + "/" + SOURCE_NAME + " cannot be read: " + e.getMessage(), e);
            }
        }
        try (InputStream in = CudaKernels.class.getResourceAsStream("/gluelab/kernels/" + SOURCE_NAME)) {
            if (in == null) throw new IllegalStateException("kernel source gluelab/kernels/" + SOURCE_NAME + " is not on the classpath (gluelab-kernels jar missing)");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read kernel source: " + e.getMessage(), e);
        }
    }

    /** (Re)loads the base module into the current context, e.g. after the context was rebuilt. */
    void load() {
        byte[] cubin = cache.cubin(source, SOURCE_NAME, arch, OPTIONS);
        CUmodule m = new CUmodule();
        JCudaDriver.cuModuleLoadData(m, cubin);
        module = m;
        functions.clear();
        configured.clear();
    }

    CUfunction function(String name) {
        return functions.computeIfAbsent(name, n -> {
            CUfunction f = new CUfunction();
            JCudaDriver.cuModuleGetFunction(f, module, n);
            return f;
        });
    }

    /** The options that compile one configuration of the instance's fused kernel. */
    static List<String> options(OpInstance in, KernelConfig c) {
        List<String> o = new ArrayList<>(OPTIONS);
        o.addAll(FusedConfigs.defines(in, c));
        return o;
    }

    /** Compiles one configuration through the cache (thread-safe: no driver calls). */
    CompileCache.Fetched compile(OpInstance in, KernelConfig c) {
        return cache.fetch(source, SOURCE_NAME, arch, options(in, c));
    }

    /** The same, compiled on a miss by {@code via} (compile worker processes). */
    CompileCache.Fetched compile(OpInstance in, KernelConfig c, CudaCompiler via) {
        return cache.fetch(source, SOURCE_NAME, arch, options(in, c), via);
    }

    /**
     * The loaded entry point of one configuration (compiled or taken from the cache). Rejected when
     * it does not compile or needs more registers than a block of its threads can have.
     */
    KernelLaunch.Function configured(OpInstance in, KernelConfig c) {
        return configured.computeIfAbsent(options(in, c), opts -> {
            byte[] cubin;
            try {
                cubin = cache.cubin(source, SOURCE_NAME, arch, opts);
            } catch (CompileException e) {
                throw new Tunable.ConfigRejected("does not compile: " + firstLines(e.getMessage()));
            }
            CUmodule m = new CUmodule();
            JCudaDriver.cuModuleLoadData(m, cubin);
            CUfunction f = new CUfunction();
            JCudaDriver.cuModuleGetFunction(f, m, c.kernel());
            int[] max = new int[1], regs = new int[1];
            JCudaDriver.cuFuncGetAttribute(max, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
            JCudaDriver.cuFuncGetAttribute(regs, CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, f);
            int threads = c.params().getOrDefault("threads", 1);
            if (max[0] < threads) {
                throw new Tunable.ConfigRejected("exceeds the device's limits: " + regs[0] + " registers per thread allow " + max[0]
                        + " threads per block, the config has " + threads);
            }
            return new KernelLaunch.Function(c.kernel(), f);
        });
    }

    static String firstLines(String text) {
        return String.join(" | ", text.lines().filter(l -> !l.isBlank()).limit(3).toList());
    }
}
