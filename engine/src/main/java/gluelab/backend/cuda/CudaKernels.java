package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.device.Tunable;
import gluelab.backend.cuda.compile.CompileCache;
import gluelab.backend.cuda.compile.CompileException;
import gluelab.backend.cuda.compile.CudaCompiler;
import gluelab.backend.cuda.compile.SourceUnit;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The catalogue's kernels: the family files from the kernels module's resources ({@link
 * KernelSources}), compiled through the cache and loaded. The base module (base.cu) holds the eager
 * primitives and calibration kernels; each fused kernel configuration is a module of its own (its
 * family's file compiled with that config's defines). Every launch through here is checked against
 * the kernel's declared parameters.
 */
final class CudaKernels {
    // Accepted by both NVRTC and nvcc; both optimise fully by default.
    static final List<String> OPTIONS = List.of("-std=c++17");

    private final CompileCache cache;
    private final String arch;
    private final KernelSources sources;
    private final Map<String, CUfunction> functions = new ConcurrentHashMap<>();
    private final Map<String, KernelSignature> baseSignatures;
    private final Map<String, Map<String, KernelSignature>> familySignatures = new ConcurrentHashMap<>();
    private final Map<List<String>, KernelLaunch.Function> configured = new ConcurrentHashMap<>();
    private CUmodule module;

    CudaKernels(CompileCache cache, String arch) {
        this.cache = cache;
        this.arch = arch;
        this.sources = new KernelSources();
        this.baseSignatures = KernelSignature.parse(sources.unit(KernelSources.BASE).text());
        load();
    }

    KernelSources sources() { return sources; }

    /** The base module's unit. */
    SourceUnit base() { return sources.unit(KernelSources.BASE); }

    /** The unit that holds the instance's fused kernel. */
    SourceUnit unit(OpInstance in) { return sources.unit(FusedKernels.require(in).source()); }

    String arch() { return arch; }

    /** (Re)loads the base module into the current context, e.g. after the context was rebuilt. */
    void load() {
        byte[] cubin = cache.cubin(base(), arch, OPTIONS);
        CUmodule m = new CUmodule();
        JCudaDriver.cuModuleLoadData(m, cubin);
        module = m;
        functions.clear();
        configured.clear();
    }

    /** The base module's kernel {@code name} checked against its declaration, then its entry point. */
    CUfunction function(String name, List<KernelSignature.Param> bound) {
        KernelSignature sig = baseSignatures.get(name);
        if (sig == null) throw new IllegalArgumentException("base.cu declares no kernel " + name);
        sig.check(bound);
        return function(name);
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
        o.addAll(FusedKernels.defines(in, c));
        return o;
    }

    /** Compiles one configuration through the cache (thread-safe: no driver calls). */
    CompileCache.Fetched compile(OpInstance in, KernelConfig c) {
        return cache.fetch(unit(in), arch, options(in, c));
    }

    /** The same, compiled on a miss by {@code via} (compile worker processes). */
    CompileCache.Fetched compile(OpInstance in, KernelConfig c, CudaCompiler via) {
        return cache.fetch(unit(in), arch, options(in, c), via);
    }

    /**
     * The loaded entry point of one configuration (compiled or taken from the cache). Rejected when
     * it does not compile or needs more registers than a block of its threads can have.
     */
    KernelLaunch.Function configured(OpInstance in, KernelConfig c) {
        return configured.computeIfAbsent(options(in, c), opts -> {
            byte[] cubin;
            try {
                cubin = cache.cubin(unit(in), arch, opts);
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
            KernelSignature sig = familySignatures.computeIfAbsent(unit(in).name(), n -> KernelSignature.parse(unit(in).text())).get(c.kernel());
            if (sig == null) throw new IllegalStateException(unit(in).name() + " declares no kernel " + c.kernel());
            return new KernelLaunch.Function(c.kernel(), f, sig);
        });
    }

    static String firstLines(String text) {
        return String.join(" | ", text.lines().filter(l -> !l.isBlank()).limit(3).toList());
    }
}
