package gluelab.expr.run;

import gluelab.device.Device;
import gluelab.backend.cpu.CpuDevice;
import gluelab.expr.Region;
import gluelab.expr.Signature;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.lower.EagerTree;
import gluelab.expr.lower.RowPlan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Compiled regions of one device, keyed by signature (structure, shapes, dtypes) plus launch
 * configuration, never by the region's or its inputs' names: the same norm at every layer of a
 * model compiles once. {@link #compiles()} counts what was actually compiled.
 */
public final class RegionCompiler {
    private static final Map<Device, RegionCompiler> BY_DEVICE = Collections.synchronizedMap(new WeakHashMap<>());

    private final Device device;
    private final Map<String, CompletableFuture<CompiledRegion>> cache = new ConcurrentHashMap<>();
    private final List<String> compiled = Collections.synchronizedList(new ArrayList<>());

    private RegionCompiler(Device device) { this.device = device; }

    /** The device's compiler (one per device, so its count covers every caller). */
    public static RegionCompiler of(Device device) { return BY_DEVICE.computeIfAbsent(device, RegionCompiler::new); }

    public Device device() { return device; }

    public CompiledRegion compile(Region r) { return compile(r, null); }

    /** Compiles on first sight of the signature with this configuration (null: the default one). */
    public CompiledRegion compile(Region r, LaunchConfig config) {
        RowPlan plan = RowPlan.of(r);
        LaunchConfig c = config != null ? config : isCpu() ? LaunchConfig.CPU : LaunchConfig.defaultFor(plan);
        Signature sig = r.signature().with(c.id());
        // The first caller of a key compiles it; others (other threads) wait for that result: one compile per key.
        CompletableFuture<CompiledRegion> mine = new CompletableFuture<>();
        CompletableFuture<CompiledRegion> first = cache.putIfAbsent(sig.key(), mine);
        if (first != null) return await(first);
        compiled.add(sig.key());
        try {
            mine.complete(isCpu() ? new CpuRegion(sig, plan, ((CpuDevice) device).parallel()) : CudaRegion.compile(device, sig, plan, c));
        } catch (RuntimeException | Error e) {
            cache.remove(sig.key(), mine);
            mine.completeExceptionally(e);
            throw e;
        }
        return mine.join();
    }

    private static CompiledRegion await(CompletableFuture<CompiledRegion> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw e;
        }
    }

    /** Compiles the region in each configuration on all cores (NVRTC runs in parallel), before any of them is timed. */
    public void compileAll(Region r, List<LaunchConfig> configs) {
        parallel(configs.stream().<Runnable>map(c -> () -> compile(r, c)).toList());
    }

    /** Compiles every kernel a lowering of each region needs (the eager tree's primitives, or the fused default) on all cores. */
    public void compileAll(List<Region> regions, Lowering lowering) {
        List<Runnable> work = new ArrayList<>();
        for (Region r : regions) {
            if (lowering == Lowering.FUSED) work.add(() -> compile(r));
            else for (EagerTree.Kernel k : EagerTree.of(r).kernels()) work.add(() -> compile(k.region()));
        }
        parallel(work);
    }

    private static void parallel(List<Runnable> work) {
        if (work.size() <= 1) {
            work.forEach(Runnable::run);
            return;
        }
        int threads = Math.min(work.size(), Runtime.getRuntime().availableProcessors());
        try (ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "region-compile");
            t.setDaemon(true);
            return t;
        })) {
            List<Future<?>> done = work.stream().<Future<?>>map(pool::submit).toList();
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException r) throw r;
                    throw new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while compiling regions", e);
                }
            }
        }
    }

    /** The configurations worth trying for a region on this device (what an autotuner sweeps). */
    public List<LaunchConfig> configs(Region r) { return isCpu() ? List.of(LaunchConfig.CPU) : LaunchConfig.candidates(RowPlan.of(r)); }

    /** How many regions were compiled (cache misses). */
    public int compiles() { return compiled.size(); }

    /** Signature keys in the order they were compiled. */
    public List<String> compiledKeys() { return List.copyOf(compiled); }

    private boolean isCpu() { return device instanceof CpuDevice; }
}
