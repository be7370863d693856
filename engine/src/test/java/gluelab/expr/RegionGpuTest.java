package gluelab.expr;

import gluelab.bench.KernelBenchmark;
import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.device.cuda.CudaDeviceProvider;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.eval.Reference;
import gluelab.expr.lab.Examples;
import gluelab.expr.lab.RegionBench;
import gluelab.expr.lab.RegionCheck;
import gluelab.expr.lab.RegionSizing;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Generated region kernels on a real GPU: eager and fused, fwd and bwd, against fp64 (fused bf16
 * within 1 ulp), every launch configuration of a backward, compile once per signature, and the
 * timings of regions vs the catalogue's tuned kernels and of region sizing, printed as
 * "REGION-TIME" / "REGION-SIZING" lines (speed targets belong in benchmarks, not in asserts).
 * Without a GPU (CI) every test is skipped by the assumption.
 */
@Tag("gpu")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RegionGpuTest {
    Device device;
    java.util.Optional<String> noGpu;

    @BeforeAll
    void setUp() {
        noGpu = new CudaDeviceProvider().unavailableReason();
        if (noGpu.isEmpty()) device = Devices.open("cuda");
    }

    @BeforeEach
    void needsAGpu() { assumeTrue(noGpu.isEmpty(), () -> "no usable GPU: " + noGpu.orElse("")); }

    @AfterAll
    void tearDown() {
        if (device != null) device.close();
    }

    static final List<BiFunction<Glue, String, Region>> EXAMPLES = List.of(Examples::rmsnorm, Examples::addRmsnorm, Examples::qnormRopeComplex,
            Examples::qnormRopeReal, Examples::swiglu);

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (ModelSpec spec : List.of(Presets.LLAMA_3_8B, Presets.DEEPSEEK_V3)) {
            for (String dt : List.of("bf16", "fp32")) {
                for (BiFunction<Glue, String, Region> m : EXAMPLES) out.add(Arguments.of(spec.name(), m.apply(Glue.of(spec, 24), dt), dt));
                if (spec.headDim() > spec.ropeHeadDim()) out.add(Arguments.of(spec.name(), Examples.qnorm(Glue.of(spec, 24), dt).then(Examples.ropeCat(Glue.of(spec, 24), dt)), dt));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void eagerAndFusedMatchFp64OnTheGpu(String model, Region r, String dtype) {
        double fused = dtype.equals("bf16") ? 1 : 64;
        for (RegionCheck.Result res : RegionCheck.check(device, r, fused, 256, 13)) assertTrue(res.ok(), model + ": " + res);
    }

    @Test
    void everyLaunchConfigOfABackwardIsCorrect() {
        Region bwd = Examples.qnormRopeComplex(Glue.of(Presets.LLAMA_3_8B, 40), "bf16").backward();
        Map<String, double[]> in = RegionCheck.randomInputs(bwd, 5);
        Map<String, double[]> ref = Reference.of(bwd).run(in);
        Map<String, Buffer> buffers = new HashMap<>();
        try {
            for (TensorSpec s : RegionLaunches.tensors(bwd)) buffers.put(s.name(), device.allocate(s));
            upload(bwd, in, buffers);
            for (LaunchConfig c : RegionCompiler.of(device).configs(bwd)) {
                try (Launch l = RegionLaunches.prepare(device, bwd, Lowering.FUSED, c, buffers, Map.of())) {
                    l.run();
                }
                device.synchronize();
                for (var o : bwd.outputs().entrySet()) {
                    double[] got = download(buffers.get(o.getKey()), o.getValue());
                    RegionCheck.Result res = compare(o.getKey(), o.getValue().dtype(), got, ref.get(o.getKey()));
                    assertTrue(res.maxUlps() <= 1, c.id() + ": " + res);
                }
            }
        } finally {
            buffers.values().forEach(Buffer::close);
        }
    }

    @Test
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

    @Test
    void regionsAgainstTheCatalogueAt8kAnd32k() {
        Calibration cal = new Calibrator(device, Locations.cacheDir()).calibrate(false);
        TimingConfig timing = TimingConfig.defaults();
        Map<String, String> catalogue = Map.of("rmsnorm", "rmsnorm", "add_rmsnorm", "add_rmsnorm", "qnorm_rope_complex", "qnorm_rope_complex",
                "qnorm_rope_real", "qnorm_rope_real", "swiglu", "swiglu");
        for (long tokens : List.of(8192L, 32768L)) {
            Glue g = Glue.of(Presets.LLAMA_3_8B, tokens);
            for (BiFunction<Glue, String, Region> m : EXAMPLES) {
                Region r = m.apply(g, "bf16");
                for (Pass pass : Pass.values()) {
                    Region x = pass == Pass.FORWARD ? r : r.backward();
                    RegionBench.Row fused = RegionBench.bench(device, cal, x, pass, Lowering.FUSED, timing);
                    // A short sweep (256-thread blocks, scalar or 8-wide accesses) keeps this test to minutes of GPU time.
                    List<LaunchConfig> sweep = RegionCompiler.of(device).configs(x).stream()
                            .filter(c -> c.blockThreads() == 256 && c.vector() != 4).toList();
                    LaunchConfig best = RegionBench.fastestConfig(device, cal, x, pass, sweep, SWEEP);
                    RegionBench.Row tuned = RegionBench.bench(device, cal, x, pass, Lowering.FUSED, best, timing);
                    // The chosen configuration is checked too, on the same structure at 24 tokens (fwd and bwd).
                    for (RegionCheck.Result res : RegionCheck.check(device, m.apply(Glue.of(Presets.LLAMA_3_8B, 24), "bf16"), best, 1, 256, 17)) {
                        assertTrue(res.ok(), best.id() + ": " + res);
                    }
                    RegionBench.Row eager = RegionBench.bench(device, cal, x, pass, Lowering.EAGER, timing);
                    double cat = catalogueUs(Catalogue.get(catalogue.get(r.name())), Presets.LLAMA_3_8B, tokens, pass, cal, timing);
                    System.out.printf("REGION-TIME %s %s T=%d region_default_us=%.1f region_tuned_us=%.1f (%s) region_eager_us=%.1f catalogue_fused_us=%.1f ideal_us=%.1f tuned/catalogue=%.2f kernels=%d%n",
                            r.name(), pass.id(), tokens, fused.measuredUs(), tuned.measuredUs(), best.id(), eager.measuredUs(), cat, fused.idealUs(),
                            tuned.measuredUs() / cat, fused.kernels());
                    assertTrue(fused.measuredUs() > 0 && cat > 0);
                }
            }
        }
    }

    @Test
    void sizingQNormRopeCatOnTheGpu() {
        Calibration cal = new Calibrator(device, Locations.cacheDir()).calibrate(false);
        for (long tokens : List.of(8192L, 32768L)) {
            Glue g = Glue.of(Presets.DEEPSEEK_V3, tokens);
            for (RegionBench.Row row : RegionSizing.measure(device, cal, Examples.qnorm(g, "bf16"), Examples.ropeCat(g, "bf16"), TimingConfig.defaults())) {
                System.out.printf("REGION-SIZING T=%d %s %s kernels=%d measured_us=%.1f ideal_us=%.1f pct_of_floor=%.1f signatures=%d%n",
                        tokens, row.lowering(), row.pass(), row.kernels(), row.measuredUs(), row.idealUs(), row.pctOfFloor(), row.signatures());
            }
        }
    }

    static final TimingConfig SWEEP = new TimingConfig(gluelab.timing.Mode.COLD, 0.02, new gluelab.timing.StopRule(5, 0.02, 0.05, 0.25, 1000), 4);

    private double catalogueUs(GlueOp op, ModelSpec spec, long tokens, Pass pass, Calibration cal, TimingConfig timing) {
        OpShape shape = op.shape(spec, tokens, DType.BF16);
        OpInstance inst = new OpInstance(op, shape, pass, Variant.FUSED);
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
            try (Launch l = device.prepare(inst, args)) {
                return KernelBenchmark.run(device, cal, l, inst.label(), op.traffic(shape, pass).total(), timing).measuredUs();
            }
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

    private static RegionCheck.Result compare(String name, DType dtype, double[] got, double[] ref) {
        return RegionCheck.compare("qnorm_rope_complex.bwd", "bwd", "fused", name, dtype, got, ref, 1);
    }
}
