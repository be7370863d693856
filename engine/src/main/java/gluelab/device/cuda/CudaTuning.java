package gluelab.device.cuda;

import gluelab.device.*;
import gluelab.device.cuda.compile.CompileCache;
import gluelab.device.cuda.compile.CompileException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The CUDA device's fused kernels as a tunable space: configs from FusedConfigs, compiled in parallel through the cache. */
final class CudaTuning implements Tunable {
    private final CudaDevice device;
    private final ConfigPicks picks;
    private final String codeId;

    CudaTuning(CudaDevice device, ConfigPicks picks) {
        this.device = device;
        this.picks = picks;
        CudaKernels k = device.kernels();
        this.codeId = k.arch() + " glue.cu@" + sha(k.source()) + " " + device.cache().compiler().id();
    }

    private static String sha(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override public List<KernelConfig> configs(OpInstance instance) { return FusedConfigs.configs(instance); }

    @Override public List<CompileOutcome> compile(OpInstance instance, List<KernelConfig> configs, int threads) {
        return compileAll(device.kernels(), instance, configs, threads);
    }

    /** Compiles configs on a pool of {@code threads} (NVRTC is thread-safe; nvcc runs as parallel processes). */
    static List<CompileOutcome> compileAll(CudaKernels kernels, OpInstance instance, List<KernelConfig> configs, int threads) {
        return compileAll(configs, threads, c -> kernels.compile(instance, c));
    }

    interface CompileStep {
        CompileCache.Fetched compile(KernelConfig c);
    }

    static List<CompileOutcome> compileAll(List<KernelConfig> configs, int threads, CompileStep step) {
        List<CompileOutcome> out = new ArrayList<>();
        if (threads <= 1) {
            for (KernelConfig c : configs) out.add(compileOne(c, step));
            return out;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, Math.max(1, configs.size())), r -> {
            Thread t = new Thread(r, "gluelab-compile");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<CompileOutcome>> futures = new ArrayList<>();
            for (KernelConfig c : configs) futures.add(pool.submit(() -> compileOne(c, step)));
            for (Future<CompileOutcome> f : futures) out.add(f.get());
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("compilation interrupted");
        } catch (ExecutionException e) {
            throw new IllegalStateException("compiling kernel configurations failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static CompileOutcome compileOne(KernelConfig c, CompileStep step) {
        long t0 = System.nanoTime();
        try {
            CompileCache.Fetched f = step.compile(c);
            return new CompileOutcome(c, (System.nanoTime() - t0) * 1e-9, f.origin().equals("compiled"), Optional.empty());
        } catch (CompileException e) {
            return new CompileOutcome(c, (System.nanoTime() - t0) * 1e-9, true, Optional.of("does not compile: " + CudaKernels.firstLines(e.getMessage())));
        }
    }

    @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config) {
        return device.prepare(instance, args, config);
    }

    @Override public String codeId() { return codeId; }

    @Override public ConfigPicks picks() { return picks; }
}
