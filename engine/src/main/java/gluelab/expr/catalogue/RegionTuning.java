package gluelab.expr.catalogue;

import gluelab.device.Buffer;
import gluelab.device.ConfigPicks;
import gluelab.device.Device;
import gluelab.device.KernelConfig;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.device.Tunable;
import gluelab.expr.Glue;
import gluelab.expr.Region;
import gluelab.expr.cuda.CudaSource;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.workbench.Examples;
import gluelab.expr.lower.RowPlan;
import gluelab.expr.run.RegionCompiler;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Variant region's launch configurations as a tunable space, so the autotuner ({@code gluelab.tune.Tuner})
 * sweeps a generated region as it sweeps a hand kernel: every candidate compiled in parallel first,
 * timed interleaved, the fastest checked against fp64, the pick stored beside the device's own picks
 * (keyed by a fingerprint of the code generator, so a change to the generated code re-tunes), and a
 * warm run compiles and times nothing. {@link CatalogueRegions#prepare} launches the stored pick.
 */
final class RegionTuning implements Tunable {
    static final String KERNEL = "region";

    private final Device device;
    private final Tunable deviceTuning;
    private final String codeId;

    RegionTuning(Device device, Tunable deviceTuning) {
        this.device = device;
        this.deviceTuning = deviceTuning;
        this.codeId = "region-codegen@" + generatorFingerprint() + " " + deviceTuning.codeId();
    }

    /** The op's region at the instance's shape and pass (empty when it has no expression). */
    private static Optional<Region> region(OpInstance in) {
        return CatalogueRegions.of(in.op(), in.shape(), in.pass()).map(CatalogueRegions.Expressed::region);
    }

    /** The default configuration first, then every other candidate (one, the CPU loop, on the CPU). */
    @Override public List<KernelConfig> configs(OpInstance in) {
        Optional<Region> r = region(in);
        if (r.isEmpty()) return List.of();
        List<LaunchConfig> all = RegionCompiler.of(device).configs(r.get());
        List<KernelConfig> out = new ArrayList<>();
        if (all.size() > 1) out.add(toKernel(LaunchConfig.defaultFor(RowPlan.of(r.get()))));
        for (LaunchConfig c : all) if (!out.contains(toKernel(c))) out.add(toKernel(c));
        return out;
    }

    @Override public List<CompileOutcome> compile(OpInstance in, List<KernelConfig> configs, int threads) {
        Region r = region(in).orElseThrow(() -> new IllegalArgumentException(in.label() + " has no expression (variant region)"));
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, configs.size())));
        try {
            List<Future<CompileOutcome>> futures = new ArrayList<>();
            for (KernelConfig k : configs) {
                futures.add(pool.submit(() -> {
                    long t0 = System.nanoTime();
                    try {
                        RegionCompiler.of(device).compile(r, toLaunch(k));
                        return new CompileOutcome(k, (System.nanoTime() - t0) * 1e-9, true, Optional.empty());
                    } catch (RuntimeException e) {
                        return new CompileOutcome(k, (System.nanoTime() - t0) * 1e-9, false, Optional.of("does not compile: " + e.getMessage()));
                    }
                }));
            }
            List<CompileOutcome> out = new ArrayList<>();
            for (Future<CompileOutcome> f : futures) out.add(f.get());
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while compiling the region configurations of " + in.label(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("compiling the region configurations of " + in.label() + ": " + e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdown();
        }
    }

    @Override public Launch prepare(OpInstance in, Map<String, Buffer> args, KernelConfig config) {
        return CatalogueRegions.prepare(device, in, args, toLaunch(config));
    }

    @Override public String codeId() { return codeId; }

    @Override public ConfigPicks picks() { return deviceTuning.picks(); }

    /** The stored pick's launch configuration, else the default (null on the CPU, whose loop has none). */
    LaunchConfig chosenLaunch(OpInstance in) { return chosen(in).map(RegionTuning::toLaunch).orElse(null); }

    static KernelConfig toKernel(LaunchConfig c) {
        Map<String, Integer> p = new LinkedHashMap<>();
        p.put("tpr", c.threadsPerRow());
        p.put("block", c.blockThreads());
        p.put("cap", c.blocksPerSm());
        p.put("vec", c.vector());
        p.put("unroll", c.unroll());
        p.put("pf", c.prefetch() ? 1 : 0);
        return new KernelConfig(KERNEL, p);
    }

    static LaunchConfig toLaunch(KernelConfig k) {
        if (k.get("tpr") == 0) return LaunchConfig.CPU;
        if (k.get("unroll") > 0) return LaunchConfig.flat(k.get("block"), k.get("cap"), k.get("vec"), k.get("unroll"));
        LaunchConfig c = new LaunchConfig(k.get("tpr"), k.get("block"), k.get("cap"), k.get("vec"));
        return k.get("pf") == 1 ? c.prefetching() : c;
    }

    /** A hash of what the generator writes for a few probe regions and configurations: changes with the generated code. */
    private static String generatorFingerprint() {
        Glue g = Glue.dims("T", 8, "D", 256, "H", 2, "HD", 64, "HD2", 32, "F", 512);
        StringBuilder all = new StringBuilder();
        for (Region r : List.of(Examples.rmsnorm(g, "bf16"), Examples.qnormRopeReal(g, "bf16"), Examples.swiglu(g, "bf16"))) {
            for (Region x : List.of(r, r.backward())) {
                RowPlan plan = RowPlan.of(x);
                List<LaunchConfig> cs = LaunchConfig.candidates(plan);
                for (LaunchConfig c : List.of(LaunchConfig.defaultFor(plan), cs.getFirst(), cs.getLast())) all.append(CudaSource.generate(plan, c).source());
            }
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(all.toString().getBytes(StandardCharsets.UTF_8))).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
