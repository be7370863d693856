package gluelab.expr;

import gluelab.bench.KernelBenchmark;
import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.check.Checker;
import gluelab.check.Correctness;
import gluelab.device.Buffer;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.backend.cuda.GpuTest;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.eval.Reference;
import gluelab.expr.workbench.Examples;
import gluelab.expr.workbench.RegionBench;
import gluelab.expr.workbench.RegionCheck;
import gluelab.expr.workbench.RegionSizing;
import gluelab.expr.lower.RowPlan;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionCompiler;
import gluelab.expr.run.RegionLaunches;
import gluelab.files.Locations;
import gluelab.model.ModelSpec;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Generated region kernels on a real GPU: eager and fused, fwd and bwd, against fp64 (fused bf16
 * within 1 ulp; one "REGION-CHECK" verdict line per output), every launch configuration of the
 * q-norm + RoPE backwards, compile once per signature, and the timings of regions vs the
 * catalogue's fused kernels and of region sizing, printed as "REGION-TIME" / "REGION-SIZING" lines
 * (speed targets belong in benchmarks, not in asserts). Kernels are compiled on all cores before
 * anything runs, and a region's buffers are filled once for all its timings (about a minute and a
 * half of an H200 in all).
 * Without a GPU (CI) every test is skipped by the assumption.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RegionGpuTest extends GpuTest {

    static final List<BiFunction<Glue, String, Region>> EXAMPLES = List.of(Examples::rmsnorm, Examples::addRmsnorm, Examples::qnormRopeComplex,
            Examples::qnormRopeReal, Examples::swiglu);

    /** The five examples at llama-3-8b dims in bf16 at 256 tokens, and q-norm + RoPE + cat at deepseek-v3's (R < HD) at 64 (the fp64 check's size limit). */
    static List<Region> checked() {
        List<Region> out = new ArrayList<>();
        for (BiFunction<Glue, String, Region> m : EXAMPLES) out.add(m.apply(Glue.of(Presets.LLAMA_3_8B, 256), "bf16"));
        Glue ds = Glue.of(Presets.DEEPSEEK_V3, 64);
        out.add(Examples.qnorm(ds, "bf16").then(Examples.ropeCat(ds, "bf16")).named("qnorm_rope_cat"));
        return out;
    }

    /** Prints one REGION-CHECK verdict per output, lowering and pass, then fails if any is out of bounds (all verdicts print first). */
    @Order(1)
    @Test
    @Tag("gpu-check")
    void eagerAndFusedMatchFp64OnTheGpu() {
        List<Region> regions = checked();
        List<Region> both = new ArrayList<>(regions);
        regions.forEach(r -> both.add(r.backward()));
        long t0 = System.nanoTime();
        RegionCompiler compiler = RegionCompiler.of(device);
        compiler.compileAll(both, Lowering.FUSED);
        compiler.compileAll(both, Lowering.EAGER);
        System.out.printf("REGION-CHECK compiled %d kernels in %.1f s%n", compiler.compiles(), (System.nanoTime() - t0) / 1e9);
        List<String> bad = new ArrayList<>();
        for (Region r : regions) {
            for (RegionCheck.Result res : RegionCheck.check(device, r, 1, 256, 13)) {
                System.out.printf("REGION-CHECK %s %s %s %s max_ulps=%.2f allowed=%.0f %s%n", r.name(), res.pass(), res.lowering(), res.output(), res.maxUlps(),
                        res.allowedUlps(), res.ok() ? "ok" : "FAIL");
                if (!res.ok()) bad.add(r.name() + " " + res);
            }
        }
        assertTrue(bad.isEmpty(), bad.toString());
    }

    /** Variant region of every expressed catalogue op against the op's own fp64 reference, bf16, at 40 tokens of llama-3-8b. */
    @Order(4)
    @Test
    @Tag("gpu-check")
    void catalogueRegionsMatchTheirReferencesOnTheGpu() {
        List<String> bad = new ArrayList<>();
        for (ModelSpec spec : List.of(Presets.LLAMA_3_8B)) {
            for (GlueOp op : Catalogue.all()) {
                for (Pass p : Pass.values()) {
                    if (!gluelab.device.ExpressionVariant.available(op, p)) continue;
                    Correctness c = new Checker(device).check(op, op.shape(spec, 40, DType.BF16), p, Variant.REGION);
                    System.out.printf("REGION-VARIANT-CHECK %s %s %s worst_ulp=%.2f rel_l2=%.2e %s%n", spec.name(), op.name(), p.id(), c.worstUlp(), c.worstRelL2(),
                            c.passed() ? "ok" : "FAIL");
                    if (!c.passed()) bad.add(spec.name() + " " + c);
                }
            }
        }
        assertTrue(bad.isEmpty(), bad.toString());
    }

    /** Every candidate configuration of both q-norm + RoPE backwards (register and shared-memory rearranging, partial sums). */
    @Order(2)
    @Test
    @Tag("gpu-check")
    void everyLaunchConfigOfTheQNormRopeBackwardsIsCorrect() {
        for (Region bwd : List.of(Examples.qnormRopeComplex(Glue.of(Presets.LLAMA_3_8B, 40), "bf16").backward(),
                Examples.qnormRopeReal(Glue.of(Presets.LLAMA_3_8B, 40), "bf16").backward())) {
            checkEveryConfig(bwd, RegionCompiler.of(device).configs(bwd), 5, "");
        }
    }

    /**
     * Every candidate configuration of the norms' backwards (independent row sums behind one
     * barrier, grids capped to one resident wave) at 300 tokens, more rows than most grids have
     * blocks, so blocks loop over rows and fetch the next one ahead.
     */
    @Order(2)
    @Test
    @Tag("gpu-check")
    void everyLaunchConfigOfTheNormBackwardsIsCorrect() {
        Glue g = Glue.of(Presets.LLAMA_3_8B, 300);
        for (Region bwd : List.of(Examples.rmsnorm(g, "bf16").backward(), Examples.addRmsnorm(g, "bf16").backward())) {
            checkEveryConfig(bwd, RegionCompiler.of(device).configs(bwd), 21, " (every config, 300 tokens)");
        }
    }

    /** Compiles the configurations in parallel, checks each against fp64 (failing on the first out of bounds), prints one REGION-CONFIGS line. */
    private void checkEveryConfig(Region r, List<LaunchConfig> every, long seed, String note) {
        List<LaunchConfig> configs = gluelab.backend.cuda.ConfigSample.of(every, r.name());
        if (configs.size() < every.size()) note += " (" + configs.size() + " of " + every.size() + ": " + gluelab.backend.cuda.ConfigSample.describe() + ")";
        RegionCompiler.of(device).compileAll(r, configs);
        Map<String, double[]> in = RegionCheck.randomInputs(r, seed);
        Map<String, double[]> ref = Reference.of(r).run(in);
        double worst = 0;
        for (LaunchConfig c : configs) {
            for (RegionCheck.Result res : fusedCheck(r, c, in, ref)) {
                worst = Math.max(worst, res.maxUlps());
                assertTrue(res.ok(), c.id() + ": " + res);
            }
        }
        System.out.printf("REGION-CONFIGS %s configs=%d%s worst_ulps=%.2f ok%n", r.name(), configs.size(), note, worst);
    }

    /**
     * Every flat (tiled, grid-stride) and row-ahead-fetching configuration of the other examples at
     * 37 tokens (a partial last tile, more rows than some grids hold at once), fwd and bwd.
     */
    @Order(2)
    @Test
    @Tag("gpu-check")
    void everyFlatAndFetchAheadConfigIsCorrect() {
        Glue g = Glue.of(Presets.LLAMA_3_8B, 37);
        List<Region> regions = new ArrayList<>();
        for (Region f : List.of(Examples.rmsnorm(g, "bf16"), Examples.addRmsnorm(g, "bf16"), Examples.swiglu(g, "bf16"))) {
            regions.add(f);
            regions.add(f.backward());
        }
        regions.add(Examples.qnormRopeComplex(g, "bf16"));
        regions.add(Examples.qnormRopeReal(g, "bf16"));
        for (Region r : regions) {
            checkEveryConfig(r, LaunchConfig.candidates(RowPlan.of(r)).stream().filter(c -> c.isFlat() || c.prefetch()).toList(), 7, " (flat or fetching ahead)");
        }
    }

    @Order(3)
    @Test
    @Tag("gpu-check")
    void thirtyTwoLayersCompileOncePerSignatureOnTheGpu() {
        RegionCompiler compiler = RegionCompiler.of(device);
        int before = compiler.compiles();
        java.util.Set<String> sigs = new java.util.HashSet<>();
        for (int layer = 0; layer < 32; layer++) {
            Glue g = Glue.of(Presets.LLAMA_3_8B, 512);
            for (Region r : List.of(Examples.rmsnorm(g, "bf16").named("l" + layer + ".attn_norm"), Examples.rmsnorm(g, "bf16").named("l" + layer + ".ffn_norm"),
                    Examples.qnormRopeReal(g, "bf16").named("l" + layer + ".q"))) {
                for (Region x : List.of(r, r.backward())) {
                    compiler.compile(x);
                    sigs.add(x.signature().key());
                }
            }
        }
        assertEquals(4, sigs.size());
        assertTrue(compiler.compiles() - before <= sigs.size(), "compiled " + (compiler.compiles() - before) + " for " + sigs.size() + " signatures");
    }

    /**
     * Each example fwd and bwd at 8k and 32k tokens (llama-3-8b dims): the default launch
     * configuration, the fastest of a short sweep (what the tuner would pick; checked vs fp64 at 24
     * tokens), eager at 8k (quick stop rule: it is only the baseline), and the catalogue's fused
     * kernel beside its variant region, over one set of buffers per region.
     */
    @Order(5)
    @Test
    @Tag("gpu-timing")
    @Tag("gpu-table")
    void regionsAgainstTheCatalogueAt8kAnd32k() {
        Calibration cal = new Calibrator(device, Locations.cacheDir()).calibrate(false);
        TimingConfig timing = TimingConfig.defaults();
        List<String> wrong = new ArrayList<>();
        for (long tokens : List.of(8192L, 32768L)) {
            Glue g = Glue.of(Presets.LLAMA_3_8B, tokens);
            for (BiFunction<Glue, String, Region> m : EXAMPLES) {
                Region r = m.apply(g, "bf16");
                for (Pass pass : Pass.values()) {
                    Region x = pass == Pass.FORWARD ? r : r.backward();
                    Map<String, Buffer> pool = new HashMap<>();
                    RegionBench.Row fused, tuned, eager = null;
                    LaunchConfig best;
                    try {
                        fused = RegionBench.bench(device, cal, x, pass, Lowering.FUSED, null, timing, pool);
                        best = RegionBench.fastestConfig(device, cal, x, pass, sweep(x), SWEEP, pool);
                        tuned = RegionBench.bench(device, cal, x, pass, Lowering.FUSED, best, timing, pool);
                        if (tokens == 8192 && !BRIEF) eager = RegionBench.bench(device, cal, x, pass, Lowering.EAGER, null, TimingConfig.quick(), pool);
                    } finally {
                        pool.values().forEach(Buffer::close);
                    }
                    Region small = m.apply(Glue.of(Presets.LLAMA_3_8B, 24), "bf16");
                    for (RegionCheck.Result res : fusedCheck(pass == Pass.FORWARD ? small : small.backward(), best, 17)) {
                        // Reported with the rest at the end: one wrong pick must not cost the other rows their timings.
                        if (!res.ok()) {
                            System.out.printf("REGION-TIME-WRONG %s %s T=%d %s: %s%n", r.name(), pass.id(), tokens, best.id(), res);
                            wrong.add(best.id() + ": " + res);
                        }
                    }
                    double[] cat = catalogueUs(Catalogue.parse(r.name()), Presets.LLAMA_3_8B, tokens, pass, cal, timing, !BRIEF);
                    System.out.printf("REGION-TIME %s %s T=%d region_default_us=%.1f region_tuned_us=%.1f (%s) region_eager_us=%s catalogue_fused_us=%.1f catalogue_region_us=%.1f ideal_us=%.1f tuned/catalogue=%.2f variant_region/fused=%.2f kernels=%d%n",
                            r.name(), pass.id(), tokens, fused.measuredUs(), tuned.measuredUs(), best.id(), eager == null ? "-" : "%.1f".formatted(eager.measuredUs()),
                            cat[0], cat[1], fused.idealUs(), tuned.measuredUs() / cat[0], cat[1] / cat[0], fused.kernels());
                    assertTrue(fused.measuredUs() > 0 && cat[0] > 0 && (BRIEF || cat[1] > 0));
                }
            }
            // The catalogue's other expressed ops (forward only), fused kernel vs variant region.
            for (String op : List.of("cat", "cast")) {
                double[] cat = catalogueUs(Catalogue.parse(op), Presets.LLAMA_3_8B, tokens, Pass.FORWARD, cal, timing, true);
                System.out.printf("REGION-TIME %s fwd T=%d catalogue_fused_us=%.1f catalogue_region_us=%.1f variant_region/fused=%.2f%n", op, tokens, cat[0], cat[1], cat[1] / cat[0]);
            }
        }
        assertTrue(wrong.isEmpty(), "tuned picks wrong against fp64: " + wrong);
    }

    /**
     * A short sweep: the default, and the candidates with its run length, the smallest block that
     * fits, 2 or 4 blocks per SM where rows are summed, with and without fetching rows ahead; every
     * candidate of a flat region (12). Long rows summed over tokens (the norms' backwards) also
     * fetching ahead with two rows a block or half-length runs (the tuner's and the hand kernel's picks, 256 threads a row).
     */
    static List<LaunchConfig> sweep(Region x) {
        RowPlan plan = RowPlan.of(x);
        LaunchConfig d = LaunchConfig.defaultFor(plan);
        List<LaunchConfig> out = new ArrayList<>(List.of(d));
        for (LaunchConfig c : LaunchConfig.candidates(plan)) {
            boolean small = c.isFlat() || c.vector() == d.vector() && c.blockThreads() == Math.max(256, c.threadsPerRow()) && c.blocksPerSm() <= 4;
            boolean longSummed = !plan.accumulated().isEmpty() && c.prefetch() && c.threadsPerRow() >= 128 && c.blocksPerSm() <= 4
                    && (c.blockThreads() == 2 * c.threadsPerRow() || c.vector() == d.vector() / 2);
            if ((small || longSummed) && !out.contains(c)) out.add(c);
        }
        return out;
    }

    /**
     * Variant region through the autotuner (gluelab.tune.Tuner): every candidate compiled and timed
     * once, the pick checked and stored; a second tuner finds the pick and compiles and times
     * nothing; then the catalogue's fused kernel and variant region (launched in the pick) on the
     * same buffers. The backwards of rmsnorm and add+rmsnorm, 8k tokens: the catalogue's math
     * (add+rmsnorm's backward takes dh and writes dx only, as its hand kernel).
     */
    @Order(7)
    @Test
    @Tag("gpu-tune")
    void variantRegionTunesOnceThroughTheTuner() {
        Calibration cal = new Calibrator(device, Locations.cacheDir()).calibrate(false);
        for (String name : List.of("rmsnorm", "add_rmsnorm")) {
            GlueOp op = Catalogue.parse(name);
            OpInstance in = new OpInstance(op, op.shape(Presets.LLAMA_3_8B, 8192, DType.BF16), Pass.BACKWARD, Variant.REGION);
            gluelab.tune.Tuner.Options options = gluelab.tune.Tuner.Options.defaults().withForce(true);
            gluelab.tune.TuneResult first = gluelab.tune.Tuner.forVariant(device, Variant.REGION, options).orElseThrow().tune(in, gluelab.progress.Progress.NONE);
            int compiles = RegionCompiler.of(device).compiles();
            gluelab.tune.TuneResult second = gluelab.tune.Tuner.forVariant(device, Variant.REGION, options.withForce(false)).orElseThrow()
                    .tune(in, gluelab.progress.Progress.NONE);
            double[] us = catalogueUs(op, Presets.LLAMA_3_8B, 8192, Pass.BACKWARD, cal, TimingConfig.defaults(), true);
            System.out.printf("REGION-TUNE %s configs=%d compile_wall_s=%.2f compile_sum_s=%.2f bench_s=%.2f pick=[%s] pick_us=%.1f check_ulp=%.2f second_from_cache=%s "
                            + "catalogue_fused_us=%.1f variant_region_us=%.1f region/fused=%.2f%n",
                    first.label(), first.configs(), first.compileWallSeconds(), first.compileSumSeconds(), first.benchmarkSeconds(), first.pick(), first.pickUs(),
                    first.checkMaxUlp(), second.fromCache(), us[0], us[1], us[1] / us[0]);
            assertTrue(second.fromCache());
            assertEquals(first.pick(), second.pick());
            assertEquals(compiles, RegionCompiler.of(device).compiles(), "a warm tuning compiles nothing");
        }
    }

    @Order(6)
    @Test
    @Tag("gpu-timing")
    @Tag("gpu-sizing")
    void sizingQNormRopeCatOnTheGpu() {
        Calibration cal = new Calibrator(device, Locations.cacheDir()).calibrate(false);
        for (long tokens : List.of(8192L, 32768L)) {
            Glue g = Glue.of(Presets.DEEPSEEK_V3, tokens);
            Map<String, Buffer> pool = new HashMap<>();
            try {
                for (RegionBench.Row row : RegionSizing.measure(device, cal, Examples.qnorm(g, "bf16"), Examples.ropeCat(g, "bf16"), TimingConfig.defaults(), pool)) {
                    System.out.printf("REGION-SIZING T=%d %s %s kernels=%d measured_us=%.1f ideal_us=%.1f pct_of_floor=%.1f signatures=%d%n",
                            tokens, row.lowering(), row.pass(), row.kernels(), row.measuredUs(), row.idealUs(), row.pctOfFloor(), row.signatures());
                }
            } finally {
                pool.values().forEach(Buffer::close);
            }
        }
    }

    /** REGION_TIME_BRIEF=1: the five examples without their eager tree and variant region timings (the rows the targets need, in one short GPU call). */
    static final boolean BRIEF = "1".equals(System.getenv("REGION_TIME_BRIEF"));

    static final TimingConfig SWEEP = new TimingConfig(gluelab.timing.Mode.COLD, 0.02, new gluelab.timing.StopRule(5, 0.02, 0.05, 0.25, 1000), 4);

    /** The catalogue's fused kernel (its tuned pick) and its variant region (the op as an expression), timed on the same buffers: us for each. */
    private double[] catalogueUs(GlueOp op, ModelSpec spec, long tokens, Pass pass, Calibration cal, TimingConfig timing, boolean variantRegion) {
        OpShape shape = op.shape(spec, tokens, DType.BF16);
        Map<String, Buffer> args = new HashMap<>();
        List<TensorSpec> specs = new ArrayList<>(op.inputs(shape, pass));
        specs.addAll(op.outputs(shape, pass));
        try {
            long seed = 3;
            for (TensorSpec s : specs) {
                Buffer b = device.allocate(s);
                args.put(s.name(), b);
                try (Tensor t = Tensor.allocate(s)) {
                    Fill.uniform(t, seed++, -1, 1);
                    device.upload(t, b);
                }
            }
            double[] us = new double[2];
            for (Variant v : variantRegion ? List.of(Variant.FUSED, Variant.REGION) : List.of(Variant.FUSED)) {
                OpInstance inst = new OpInstance(op, shape, pass, v);
                // The target is the tuned catalogue kernel: tune it (or find its cached pick) so prepare launches the pick.
                if (v == Variant.FUSED) gluelab.tune.Tuner.forVariant(device, v, gluelab.tune.Tuner.Options.defaults())
                        .ifPresent(t -> t.tune(inst, gluelab.progress.Progress.NONE));
                try (Launch l = device.prepare(inst, args)) {
                    us[v == Variant.FUSED ? 0 : 1] = KernelBenchmark.run(device, cal, l, inst.label(), op.traffic(shape, pass).total(), timing).measuredUs();
                }
            }
            return us;
        } finally {
            args.values().forEach(Buffer::close);
        }
    }

    private void upload(Region r, Map<String, double[]> in, Map<String, Buffer> buffers) {
        for (Expr x : r.inputs()) {
            try (Tensor t = Tensor.allocate(TensorSpec.of(x.name(), x.dtype(), x.shape().sizes()))) {
                double[] v = in.get(x.name());
                for (int i = 0; i < v.length; i++) t.setDouble(i, v[i]);
                device.upload(t, buffers.get(x.name()));
            }
        }
    }

    private double[] download(Buffer b, Expr e) {
        try (Tensor t = Tensor.allocate(TensorSpec.of("out", e.dtype(), e.shape().sizes()))) {
            device.download(b, t);
            return t.toDoubles();
        }
    }

    /** The fused region in one configuration against fp64, every output (bf16 within 1 ulp; 2 for a joined region that rounds inside: RegionCheck.roundsInside). */
    private List<RegionCheck.Result> fusedCheck(Region r, LaunchConfig c, long seed) {
        Map<String, double[]> in = RegionCheck.randomInputs(r, seed);
        return fusedCheck(r, c, in, Reference.of(r).run(in));
    }

    private List<RegionCheck.Result> fusedCheck(Region r, LaunchConfig c, Map<String, double[]> in, Map<String, double[]> ref) {
        Map<String, double[]> got = RegionLaunches.run(device, r, Lowering.FUSED, c, in, Map.of());
        List<RegionCheck.Result> out = new ArrayList<>();
        for (var o : r.outputs().entrySet()) {
            out.add(RegionCheck.compare(r.name(), "fused " + c.id(), "fused", o.getKey(), o.getValue().dtype(), got.get(o.getKey()), ref.get(o.getKey()),
                    RegionCheck.roundsInside(r) ? 2 : 1));
        }
        return out;
    }
}
