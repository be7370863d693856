package gluelab.backend.cuda;

import gluelab.device.*;
import gluelab.backend.cuda.compile.CompileCache;
import gluelab.backend.cuda.compile.CompileException;
import gluelab.backend.cuda.compile.CompileWorkers;
import gluelab.backend.cuda.compile.CudaCompiler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The CUDA device's fused kernels as a tunable space: configs from the kernel families, compiled in
 * parallel through the cache. A batch compiles in worker processes ({@link CompileWorkers}: NVRTC
 * does not scale across threads of one process), or in this process's threads where none can start.
 */
final class CudaTuning implements Tunable, AutoCloseable {
    /** Set to false (-Dgluelab.compileWorkers=false) to compile batches in this process's threads. */
    static final String WORKERS_PROPERTY = "gluelab.compileWorkers";

    private final CudaDevice device;
    private final ConfigPicks picks;
    private final String codeId;
    private final Map<gluelab.ops.OpId, String> familyHashes;
    private final String compilerId;
    private final ShippedPicks shipped;
    private CompileWorkers workers;

    /** {@code workers}: compile workers the device started while it opened (a tuning was announced), or null. */
    CudaTuning(CudaDevice device, ConfigPicks picks, CompileWorkers workers) {
        this.device = device;
        this.picks = picks;
        this.workers = workers;
        CudaKernels k = device.kernels();
        this.compilerId = device.cache().compiler().id();
        this.codeId = k.arch() + " kernels@" + KernelsHash.all(k.sources()) + " " + compilerId;
        this.familyHashes = KernelsHash.byOp(k.sources());
        this.shipped = ShippedPicks.forKernels(k.arch(), familyHashes);
    }

    @Override public List<KernelConfig> configs(OpInstance instance) { return FusedKernels.configs(instance); }

    @Override public List<CompileOutcome> compile(OpInstance instance, List<KernelConfig> configs, int threads) {
        return compileAll(device.kernels(), instance, configs, threads);
    }

    static boolean workersEnabled() { return Boolean.parseBoolean(System.getProperty(WORKERS_PROPERTY, "true")); }

    @Override public synchronized void startCompilers(int threads) {
        if (threads <= 1 || workers != null || !workersEnabled()) return;
        workers = CompileWorkers.start(workerJvm(), threads, device.kernels().arch(), device.cache().compiler());
    }

    /** The command that starts a Java main of gluelab's: this runtime, a small heap, quick start-up (C1 only), this class path. */
    static List<String> workerJvm() {
        String self = ProcessHandle.current().info().command().orElse(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return List.of(self, "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
                "-XX:-UsePerfData", "-cp", KernelSandbox.classPath());
    }

    @Override public CompileBatch compileBatch(List<CompileJob> jobs, int threads) {
        if (threads > 1) startCompilers(threads);
        CompileWorkers pool;
        synchronized (this) {
            pool = workers;
        }
        String off = threads > 1 && pool == null ? " (compile workers off: -D" + WORKERS_PROPERTY + "=false)" : "";
        CompileBatch b = compileBatch(jobs, threads, pool, (j, via) -> via == null ? device.kernels().compile(j.instance(), j.config())
                : device.kernels().compile(j.instance(), j.config(), via));
        return off.isEmpty() ? b : new CompileBatch(b.outcomes(), b.processes(), b.how() + off);
    }

    /**
     * Compiles the jobs on {@code pool}'s worker processes ({@code step} gets the pool as the
     * compiler to use), or in this process's threads ({@code step} gets null) where there is no
     * pool or none of its workers could start; the batch says which, and why.
     */
    static CompileBatch compileBatch(List<CompileJob> jobs, int threads, CompileWorkers pool, BiFunction<CompileJob, CudaCompiler, CompileCache.Fetched> step) {
        String inProcess = threads <= 1 ? "one at a time in this process" : threads + " threads in this process";
        if (pool == null) return new CompileBatch(compileAll(jobs, threads, CompileJob::config, j -> step.apply(j, null)), 0, inProcess);
        try {
            // Waits only for the first worker; the others join as they come up.
            List<CompileOutcome> outcomes = compileAll(jobs, pool.size(), CompileJob::config, j -> step.apply(j, pool));
            double up = pool.readyAfterSeconds();
            return new CompileBatch(outcomes, pool.alive(), pool.alive() + " compile worker processes"
                    + (Double.isNaN(up) ? "" : String.format(java.util.Locale.ROOT, " (all up %.2f s after their start)", up)));
        } catch (CompileWorkers.Unavailable e) {
            return new CompileBatch(compileAll(jobs, threads, CompileJob::config, j -> step.apply(j, null)), 0,
                    inProcess + " (compile worker processes unavailable: " + e.getMessage() + ")");
        }
    }

    @Override public void stopCompilers() { close(); }

    @Override public synchronized void close() {
        if (workers != null) workers.close();
        workers = null;
    }

    /** Compiles configs on a pool of {@code threads} in this process (nvcc runs as parallel processes). */
    static List<CompileOutcome> compileAll(CudaKernels kernels, OpInstance instance, List<KernelConfig> configs, int threads) {
        return compileAll(configs, threads, c -> c, c -> kernels.compile(instance, c));
    }

    /**
     * Compiles each job on a pool of {@code threads}; outcomes in the order of the jobs. A compile
     * error or a compile worker that died twice is that config's outcome; no usable worker at all
     * ({@link CompileWorkers.Unavailable}) ends the batch, for the caller to compile in process.
     */
    static <J> List<CompileOutcome> compileAll(List<J> jobs, int threads, Function<J, KernelConfig> config, Function<J, CompileCache.Fetched> step) {
        List<CompileOutcome> out = new ArrayList<>();
        if (threads <= 1) {
            for (J j : jobs) out.add(compileOne(config.apply(j), () -> step.apply(j)));
            return out;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, Math.max(1, jobs.size())), r -> {
            Thread t = new Thread(r, "gluelab-compile");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<CompileOutcome>> futures = new ArrayList<>();
            for (J j : jobs) futures.add(pool.submit(() -> compileOne(config.apply(j), () -> step.apply(j))));
            for (Future<CompileOutcome> f : futures) out.add(f.get());
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("compilation interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CompileWorkers.Unavailable u) throw u;
            throw new IllegalStateException("compiling kernel configurations failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static CompileOutcome compileOne(KernelConfig c, Supplier<CompileCache.Fetched> step) {
        long t0 = System.nanoTime();
        try {
            CompileCache.Fetched f = step.get();
            return new CompileOutcome(c, (System.nanoTime() - t0) * 1e-9, f.origin().equals("compiled"), Optional.empty());
        } catch (CompileException e) {
            return new CompileOutcome(c, (System.nanoTime() - t0) * 1e-9, true, Optional.of("does not compile: " + CudaKernels.firstLines(e.getMessage())));
        } catch (CompileWorkers.WorkerDied e) {
            return new CompileOutcome(c, (System.nanoTime() - t0) * 1e-9, false, Optional.of("not compiled: " + e.getMessage()));
        }
    }

    @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config) {
        return device.prepare(instance, args, config);
    }

    @Override public String codeId() { return codeId; }

    /** The instance's family's sources only: a change to another family's file keeps this machine's picks of this one. */
    @Override public String codeId(OpInstance instance) {
        String h = familyHashes.get(gluelab.ops.OpId.of(instance.op().name()));
        return h == null ? codeId : device.kernels().arch() + " kernels@" + h + " " + compilerId;
    }

    @Override public ConfigPicks picks() { return picks; }

    @Override public ShippedPicks shipped() { return shipped; }
}
