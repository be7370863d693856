package gluelab.backend.cuda;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchRunner;
import gluelab.calibrate.Calibration;
import gluelab.calibrate.Calibrator;
import gluelab.check.Checker;
import gluelab.check.Correctness;
import gluelab.device.Buffer;
import gluelab.device.Launch;
import gluelab.backend.cuda.compile.CompileCache;
import gluelab.backend.cuda.compile.CompileException;
import gluelab.model.ModelSpec;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.Row;
import gluelab.tensor.DType;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.*;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The CUDA device on a real GPU. Without one (CI) every test is skipped by the assumption in
 * {@link GpuTest}; docs/development.md gives the command that runs them on the GPU host.
 */
class CudaDeviceTest extends GpuTest {

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (GlueOp op : Catalogue.all()) {
            for (Pass p : Pass.values()) {
                if (!op.supports(p)) continue;
                for (Variant v : Variant.ON_DEVICES) for (DType d : List.of(DType.BF16, DType.FP32)) out.add(Arguments.of(op.name(), p, v, d));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @MethodSource("cases")
    void everyOpMatchesFp64OnTheGpu(String name, Pass pass, Variant variant, DType dtype) {
        GlueOp op = Catalogue.parse(name);
        for (ModelSpec spec : List.of(Presets.LLAMA_3_8B, Presets.DEEPSEEK_V3)) {
            var shape = op.shape(spec, 24, dtype);
            Correctness c = new Checker(device).check(op, shape, pass, variant);
            assertTrue(c.passed(), () -> spec.name() + ": " + c);
            if (variant == Variant.FUSED && dtype == DType.BF16) {
                var outs = op.outputs(shape, pass);
                for (int i = 0; i < outs.size(); i++) {
                    if (outs.get(i).dtype() == DType.BF16) assertTrue(c.vsReference().get(i).maxUlp() <= 2.0, c.vsReference().get(i).toString());
                }
            }
        }
    }

    /**
     * Every configuration the tuner may pick computes the same function: each checked vs fp64 (bf16
     * within 2 ulp per element). The suite checks a daily sample of each kernel's configs
     * ({@link ConfigSample}); {@code GLUELAB_EXHAUSTIVE=1} checks them all.
     */
    @Test
    void everyConfigOfEveryFusedKernelMatchesFp64() {
        gluelab.device.Tunable tunable = device.tunable().orElseThrow();
        int checked = 0;
        List<String> failures = new ArrayList<>();
        for (ModelSpec spec : List.of(Presets.ANCHOR_H200, Presets.DEEPSEEK_V3)) {
            for (DType dtype : spec == Presets.ANCHOR_H200 ? List.of(DType.BF16, DType.FP32) : List.of(DType.BF16)) {
                for (GlueOp op : Catalogue.all()) {
                    for (Pass pass : Pass.values()) {
                        if (!op.supports(pass)) continue;
                        var in = new gluelab.device.OpInstance(op, op.shape(spec, 40, dtype), pass, Variant.FUSED);
                        var configs = ConfigSample.of(tunable.configs(in), spec.name() + " " + in.label() + " " + dtype.id());
                        for (var o : tunable.compile(in, configs, Runtime.getRuntime().availableProcessors())) {
                            assertTrue(o.error().isEmpty(), () -> o.config() + ": " + o.error().orElse(""));
                        }
                        for (var cfg : configs) {
                            Correctness c = new Checker(device, (i, a) -> tunable.prepare(i, a, cfg)).check(op, in.shape(), pass, Variant.FUSED);
                            boolean ulpOk = true;
                            var outs = op.outputs(in.shape(), pass);
                            for (int k = 0; k < outs.size(); k++) {
                                if (outs.get(k).dtype() == DType.BF16 && c.vsReference().get(k).maxUlp() > 2.0) ulpOk = false;
                            }
                            if (!c.passed() || !ulpOk) failures.add(spec.name() + " " + cfg + ": " + c);
                            checked++;
                        }
                    }
                }
            }
        }
        System.out.println("checked " + checked + " kernel configurations vs fp64: " + ConfigSample.describe());
        assertTrue(failures.isEmpty(), () -> failures.size() + " configs wrong:\n" + String.join("\n", failures));
        assertTrue(checked >= (ConfigSample.exhaustive() ? 300 : 40), "checked " + checked);
    }

    @Test
    void tuningPicksACheckedConfigAndAWarmRunTunesNothing() {
        GlueOp op = Catalogue.parse("rmsnorm");
        var in = new gluelab.device.OpInstance(op, op.shape(Presets.ANCHOR_H200, 4096, DType.BF16), Pass.BACKWARD, Variant.FUSED);
        var tuner = new gluelab.tune.Tuner(device, gluelab.tune.Tuner.Options.defaults().withForce(true));
        var first = tuner.tune(in, Progress.NONE);
        assertFalse(first.fromCache());
        assertTrue(first.compileWallSeconds() <= first.compileSumSeconds() + 0.5, first.toString());
        assertTrue(first.results().stream().filter(gluelab.tune.ConfigResult::valid).count() >= 8, first.results().toString());
        assertTrue(first.checkMaxUlp() <= 2.0);
        long before = ((CudaDevice) device).compileLog().stream().filter(e -> e.origin().equals("compiled")).count();
        var second = new gluelab.tune.Tuner(device, gluelab.tune.Tuner.Options.defaults()).tune(in, Progress.NONE);
        assertTrue(second.fromCache(), "a warm run tunes nothing");
        assertEquals(first.pick(), second.pick());
        assertEquals(first.pick(), device.tunable().orElseThrow().chosen(in).orElseThrow().id(), "plain prepare uses the pick");
        long after = ((CudaDevice) device).compileLog().stream().filter(e -> e.origin().equals("compiled")).count();
        assertEquals(before, after, "a warm run compiles nothing");
    }

    @Test
    void aWarmCacheCompilesNothing() {
        CudaDevice cuda = (CudaDevice) device;
        String arch = cuda.facts().extras().get("arch");
        CompileCache.clearMemory();
        CompileCache fresh = new CompileCache(gluelab.files.Locations.cacheDir().resolve("cuda"), cuda.cache().compiler());
        fresh.cubin(cuda.kernels().base(), arch, CudaKernels.OPTIONS);
        fresh.cubin(new KernelSources().unit(KernelSources.BASE), arch, CudaKernels.OPTIONS);
        assertEquals(List.of("disk", "memory"), fresh.log().stream().map(CompileCache.Entry::origin).toList());
    }

    @Test
    void compileErrorsShowTheLogWithLineNumbers() {
        String src = "extern \"C\" __global__ void broken(float* p) {\n  p[0] = not_declared;\n}\n";
        var e = assertThrows(CompileException.class, () -> UserKernel.compile(device, src, "broken"));
        assertTrue(e.getMessage().contains("not_declared"), e.getMessage());
        assertTrue(e.getMessage().contains("(2)") || e.getMessage().contains(":2"), e.getMessage());
    }

    static final String WILD = "extern \"C\" __global__ void wild(float* p, long long off) { p[off] = 1.0f; }\n";
    static final String SCALE = "extern \"C\" __global__ void scale(const float* x, float* y, long long n) {\n"
            + "  for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) y[i] = 2.f * x[i];\n}\n";
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.02, new StopRule(10, 0.02, 0.05, 2, 200), 4);

    /** A user kernel's fault ends only its worker process: the same device and session go on. */
    @Test
    void anIllegalAddressIsReportedAndTheNextMeasurementWorks() {
        UserKernel wild = UserKernel.compile(device, WILD, "wild"), scale = UserKernel.compile(device, SCALE, "scale");
        int workers = ((CudaDevice) device).sandbox().workersStarted();
        long n = 1L << 20;
        try (Buffer b = device.allocate(TensorSpec.of("b", DType.FP32, 16)); Buffer x = device.allocate(TensorSpec.of("x", DType.FP32, n));
             Buffer y = device.allocate(TensorSpec.of("y", DType.FP32, n))) {
            var e = assertThrows(KernelFaultException.class, () -> wild.launch(1, 1, b, 1L << 40).run());
            assertTrue(e.getMessage().contains("ILLEGAL_ADDRESS") && e.getMessage().contains("next call starts a fresh worker"), e.getMessage());
            Correctness c = new Checker(device).check(Catalogue.parse("rmsnorm"), Catalogue.parse("rmsnorm").shape(Presets.LLAMA_3_8B, 8, DType.BF16),
                    Pass.FORWARD, Variant.FUSED);
            assertTrue(c.passed(), "a catalogue op right after the fault: " + c);
            long t0 = System.nanoTime();
            scale.launch(264, 256, x, y, n).run();
            double recoverMs = (System.nanoTime() - t0) / 1e6;
            double[] trips = new double[20];
            for (int i = 0; i < trips.length; i++) {
                long t = System.nanoTime();
                scale.launch(264, 256, x, y, n).run();
                trips[i] = (System.nanoTime() - t) / 1e6;
            }
            java.util.Arrays.sort(trips);
            System.out.printf("user kernel fault: first run after it (new worker, recompile from cache) %.0f ms; run() round trip median %.2f ms%n",
                    recoverMs, trips[trips.length / 2]);
            var r = gluelab.bench.KernelBenchmark.run(device, Calibration.given("t", 4e12, 1e15), scale.launch(264, 256, x, y, n), QUICK);
            assertTrue(r.measuredUs() > 0 && r.graph() != null, "the next measurement works: " + r);
            assertThrows(KernelFaultException.class, () -> wild.launch(1, 1, b, 1L << 40).run(), "and the faulting kernel faults again");
            scale.launch(264, 256, x, y, n).run();
            assertEquals(workers + 2, ((CudaDevice) device).sandbox().workersStarted(), "a fresh worker after each fault");
        }
    }

    /** A kernel that never ends is stopped by an interrupt (a notebook's stop button); the next call works. */
    @Test
    void anInterruptStopsAKernelThatNeverEnds() throws Exception {
        UserKernel spin = UserKernel.compile(device, "extern \"C\" __global__ void spin(volatile int* flag) { while (flag[0] == 0) { } }\n", "spin");
        try (Buffer flag = device.allocate(TensorSpec.of("flag", DType.FP32, 1)); Tensor zero = Tensor.allocate(TensorSpec.of("z", DType.FP32, 1))) {
            device.upload(zero, flag);
            var outcome = new java.util.concurrent.atomic.AtomicReference<Throwable>();
            Thread t = new Thread(() -> {
                try {
                    spin.launch(1, 1, flag).run();
                } catch (Throwable e) {
                    outcome.set(e);
                }
            });
            t.start();
            Thread.sleep(2000);
            assertTrue(t.isAlive(), "the kernel is still spinning");
            t.interrupt();
            t.join(60_000);
            assertInstanceOf(java.util.concurrent.CancellationException.class, outcome.get());
            UserKernel scale = UserKernel.compile(device, SCALE, "scale");
            try (Buffer x = device.allocate(TensorSpec.of("x", DType.FP32, 1024)); Buffer y = device.allocate(TensorSpec.of("y", DType.FP32, 1024))) {
                scale.launch(4, 256, x, y, 1024L).run();
            }
        }
    }

    @Test
    void allocationBeyondFreeMemoryFailsClearly() {
        long tooMuch = device.availableMemory() + (1L << 30);
        var e = assertThrows(IllegalArgumentException.class, () -> device.allocate(TensorSpec.of("huge", DType.FP32, tooMuch / 4)));
        assertTrue(e.getMessage().contains("GiB free"), e.getMessage());
    }

    @Test
    void everyMeasurementHasAGraphRowAndKernelCounts() {
        TimingConfig t = new TimingConfig(Mode.COLD, 0.01, new StopRule(5, 0, 0.5, 0.5, 50), 4);
        BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.parse("rmsnorm")), List.of(2048L), List.of(Variant.EAGER, Variant.FUSED),
                List.of(Pass.FORWARD), DType.BF16, t, 0);
        List<Row> rows = new BenchRunner(device, Calibration.given("t", 4e12, 1e15)).run(plan, Progress.NONE, r -> {}).rows();
        assertEquals(List.of("eager", "eager graph", "fused", "fused graph"), rows.stream().map(r -> r.key().series()).toList());
        assertEquals(6, rows.get(0).measurement().kernels());
        assertEquals(1, rows.get(2).measurement().kernels());
        assertEquals(List.of(8, 1, 8, 1), rows.stream().map(r -> r.measurement().placements()).toList(),
                "direct rows rotate through CUDA's 8 buffer placements; graph rows replay one");
        assertTrue(rows.get(2).measuredUs() < rows.get(0).measuredUs(), "fused should beat eager: " + rows);
    }

    @Test
    void copyCalibrationReachesMostOfTheTheoreticalBandwidth() {
        Calibration c = new Calibrator(device, gluelab.files.Locations.calibrationCache()).measure();
        assertTrue(c.copyMedian() > 0.7 * device.facts().theoreticalBandwidth(), c::describe);
    }

    @Test
    void userKernelsBenchAgainstTheirFloor() throws Exception {
        UserKernel k = UserKernel.compile(device, SCALE, "scale");
        long n = 1L << 26;
        try (Buffer x = device.allocate(TensorSpec.of("x", DType.FP32, n)); Buffer y = device.allocate(TensorSpec.of("y", DType.FP32, n));
             Tensor host = Tensor.allocate(TensorSpec.of("h", DType.FP32, n))) {
            Fill.uniform(host, 1, -1, 1);
            device.upload(host, x);
            var launch = k.launch(1056, 256, x, y, n);
            assertEquals(8 * n, launch.bufferBytes(), "floor bytes default to the buffers' sizes");
            launch.run();
            try (Tensor out = Tensor.allocate(TensorSpec.of("o", DType.FP32, n))) {
                device.download(y, out);
                for (long i : new long[]{0, 1, n / 2, n - 1}) assertEquals(2 * host.getDouble(i), out.getDouble(i), 0, "y = 2x at " + i);
            }
            var r = gluelab.bench.KernelBenchmark.run(device, new Calibrator(device, gluelab.files.Locations.calibrationCache()).calibrate(false), launch,
                    new TimingConfig(Mode.COLD, 0.05, new StopRule(10, 0.05, 0.02, 2, 1000), 4));
            assertTrue(r.achievedGBs() > 1000, "user kernel at " + r.achievedGBs() + " GB/s");
            assertTrue(r.pctOfFloor() > 20 && r.pctOfFloor() < 130, "% of floor " + r.pctOfFloor());
            assertNotNull(r.graph(), "a graph row too");
            System.out.printf("user kernel 'scale' on 2 x 256 MiB: %.1f us, %.1f GB/s, %.0f%% of floor%n", r.measuredUs(), r.achievedGBs(), r.pctOfFloor());
        }
    }
}
