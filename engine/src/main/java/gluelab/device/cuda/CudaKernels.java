package gluelab.device.cuda;

import gluelab.device.cuda.compile.CompileCache;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The catalogue's kernels: glue.cu from the kernels module's resources, compiled through the cache and loaded. */
final class CudaKernels {
    static final String SOURCE_NAME = "glue.cu";
    // Accepted by both NVRTC and nvcc; both optimise fully by default.
    static final List<String> OPTIONS = List.of("-std=c++17");

    private final CompileCache cache;
    private final String arch;
    private final String source;
    private final Map<String, CUfunction> functions = new ConcurrentHashMap<>();
    private CUmodule module;

    CudaKernels(CompileCache cache, String arch) {
        this.cache = cache;
        this.arch = arch;
        this.source = readSource();
        load();
    }

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

    /** (Re)loads the module into the current context, e.g. after the context was rebuilt. */
    void load() {
        byte[] cubin = cache.cubin(source, SOURCE_NAME, arch, OPTIONS);
        CUmodule m = new CUmodule();
        JCudaDriver.cuModuleLoadData(m, cubin);
        module = m;
        functions.clear();
    }

    CUfunction function(String name) {
        return functions.computeIfAbsent(name, n -> {
            CUfunction f = new CUfunction();
            JCudaDriver.cuModuleGetFunction(f, module, n);
            return f;
        });
    }
}
