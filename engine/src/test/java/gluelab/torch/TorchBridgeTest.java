package gluelab.torch;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.bench.BenchRunner;
import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.Row;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The bridge for real with the system Python's torch on the CPU (CI installs Debian's python3-torch,
 * 1.13: eager rows measured, torch.compile rows skipped with the reason).
 */
@Tag("slow")
public class TorchBridgeTest {
    static final String PYTHON = "/usr/bin/python3";
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(5, 0.002, 0.5, 0.3, 200), 2);
    static Device cpu;
    static TorchSide torch;

    public static boolean hasTorchForCli() { return hasTorch(); }

    static boolean hasTorch() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import torch").redirectErrorStream(true).start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    @BeforeAll static void start() {
        assumeTrue(hasTorch(), PYTHON + " has no torch: install Debian's python3-torch (bin/lib/test-deps.sh does)");
        cpu = Devices.open("cpu");
        torch = TorchSide.start(PYTHON, cpu);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    /** An assumed bandwidth: these tests check rows and floors' bytes, not speed. */
    static Calibration calibration() { return new Calibration("test", cpu.facts().name(), 0, 10e9, 10e9, 15e9, 15e9, 100e9, 0, "assumed", "", java.util.Map.of(), false); }

    @Test void versionsNameTorchAndWhyCompileIsMissing() {
        TorchVersions v = torch.versions();
        assertFalse(v.torch().isEmpty());
        assertEquals("cpu", v.device());
        if (!v.compile()) assertTrue(v.compileReason().contains("has no torch.compile"), v.compileReason());
        assertTrue(v.describe().startsWith("torch " + v.torch()), v.describe());
    }

    @Test void catalogueOpsGiveTorchRowsWithGluelabsFloor() {
        var spec = Presets.LLAMA_3_8B;
        BenchPlan plan = new BenchPlan(spec, List.of(Catalogue.parse("rmsnorm"), Catalogue.parse("moe_routing")), List.of(16L),
                List.of(Variant.EAGER), List.of(Pass.FORWARD, Pass.BACKWARD), DType.BF16, QUICK, 0);
        BenchResult gluelab = new BenchRunner(cpu, calibration()).run(plan, Progress.NONE, r -> {});
        TorchSide.Combined c = torch.bench(plan, calibration(), gluelab, List.of(TorchVariant.values()), "default", Progress.NONE);
        List<Row> torchRows = c.torch().rows();
        assertEquals(3, torchRows.stream().filter(r -> r.variant() == Variant.TORCH_EAGER).count(), "rmsnorm fwd, bwd; moe_routing fwd");
        for (Row t : torchRows) {
            Row g = gluelab.rows().stream().filter(r -> r.op().equals(t.op()) && r.pass().equals(t.pass())).findFirst().orElseThrow();
            assertEquals(g.bytes(), t.bytes(), "same floor bytes: " + t.key());
            assertTrue(t.measuredUs() > 0, t.key().toString());
        }
        assertEquals(gluelab.rows().size() + torchRows.size(), c.result().rows().size());
        if (!torch.versions().compile()) {
            assertTrue(c.torch().skipped().stream().anyMatch(s -> s.variant().equals("torch-compile") && s.reason().contains("no torch.compile")));
        }
        assertTrue(c.table().columnNames().containsAll(List.of("eager_us", "torch-eager_us")), c.table().columnNames().toString());
    }

    @Test void aUserFunctionIsTimedAndItsFailureLeavesTheBridgeUsable(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("mine.py"), """
                import torch
                def scale(x, w):
                    return x * w
                def broken(x, w):
                    raise ValueError("shapes do not line up in broken()")
                """);
        List<TensorSpec> inputs = List.of(TensorSpec.of("x", DType.FP32, 64, 256), TensorSpec.of("w", DType.FP32, 256));
        TorchResult r = new TorchFunction(file + ":scale", inputs, "custom")
                .time(torch.bridge(), calibration(), torch.flushBytes(), Pass.FORWARD, List.of(TorchVariant.EAGER), "default", QUICK);
        Row row = r.rows().getFirst();
        assertEquals(Variant.TORCH_EAGER, row.variant());
        assertEquals(64 * 256 * 4 * 2 + 256 * 4, row.bytes(), "x and w read, the product written");
        var e = assertThrows(TorchException.class, () -> new TorchFunction(file + ":broken", inputs, "custom")
                .time(torch.bridge(), calibration(), torch.flushBytes(), Pass.FORWARD, List.of(TorchVariant.EAGER), "default", QUICK));
        assertEquals(TorchException.Kind.FAILED, e.kind());
        assertTrue(e.getMessage().contains("ValueError: shapes do not line up in broken()"), e.getMessage());
        assertTrue(e.pythonTraceback().contains("mine.py"), e.pythonTraceback());
        var missing = assertThrows(TorchException.class, () -> new TorchFunction(file + ":nope", inputs, "custom")
                .time(torch.bridge(), calibration(), torch.flushBytes(), Pass.FORWARD, List.of(TorchVariant.EAGER), "default", QUICK));
        assertTrue(missing.getMessage().contains("has no attribute 'nope'"), missing.getMessage());
        assertTrue(torch.bridge().alive(), "the harness survives a failing user function");
    }

    @Test void aPythonWithoutTorchOrAHarnessThatDiesIsAClearError(@TempDir Path dir) throws Exception {
        // The same system Python without its site packages: a real interpreter that cannot import torch.
        Path noSite = dir.resolve("python-no-site");
        Files.writeString(noSite, "#!/bin/sh\nexec " + PYTHON + " -S \"$@\"\n");
        noSite.toFile().setExecutable(true);
        var e = assertThrows(TorchException.class, () -> TorchBridge.start(noSite.toString(), "cpu"));
        assertEquals(TorchException.Kind.MISSING, e.kind());
        assertTrue(e.getMessage().contains("torch cannot be imported"), e.getMessage());
        var none = assertThrows(TorchException.class, () -> TorchBridge.start(dir.resolve("no-python").toString(), "cpu"));
        assertTrue(none.getMessage().contains("--python"), none.getMessage());
        Path file = Files.writeString(dir.resolve("dies.py"), "import os, time\ndef f(x):\n    os._exit(3)\ndef slow(x):\n    time.sleep(60)\n");
        try (TorchBridge b = TorchBridge.start(PYTHON, "cpu")) {
            var crash = assertThrows(TorchException.class, () -> new TorchFunction(file + ":f", List.of(TensorSpec.of("x", DType.FP32, 4)), "m")
                    .time(b, calibration(), 1024, Pass.FORWARD, List.of(TorchVariant.EAGER), "default", QUICK));
            assertEquals(TorchException.Kind.CRASHED, crash.kind());
            assertTrue(crash.getMessage().contains("exit code 3"), crash.getMessage());
            assertFalse(b.alive());
        }
        // The stop button: an interrupt while the harness runs the user's code ends the harness at once.
        try (TorchBridge b = TorchBridge.start(PYTHON, "cpu")) {
            var failure = new java.util.concurrent.atomic.AtomicReference<Throwable>();
            Thread t = new Thread(() -> {
                try {
                    new TorchFunction(file + ":slow", List.of(TensorSpec.of("x", DType.FP32, 4)), "m")
                            .time(b, calibration(), 1024, Pass.FORWARD, List.of(TorchVariant.EAGER), "default", QUICK);
                } catch (Throwable thrown) {
                    failure.set(thrown);
                }
            });
            t.start();
            Thread.sleep(1500);
            long t0 = System.nanoTime();
            t.interrupt();
            t.join(10_000);
            assertTrue((System.nanoTime() - t0) / 1e9 < 5, "the call returns promptly");
            assertInstanceOf(java.util.concurrent.CancellationException.class, failure.get());
            assertTrue(b.process().waitFor(5, TimeUnit.SECONDS), "the harness was ended");
        }
    }

    @Test void theFacadeAddsTorchRowsToABench() {
        try (var lab = gluelab.lab.Gluelab.open("cpu").assumeBandwidth(gluelab.units.Bandwidth.gbPerSecond(10), 100e9)) {
            BenchResult r = lab.bench("cast").tokens(16).timing(QUICK).check(0).withTorch(PYTHON).run();
            assertEquals(List.of("eager", "fused", "torch-eager"), r.rows().stream().map(x -> x.key().series()).toList());
            assertSame(lab.torch(PYTHON), lab.torch(PYTHON), "one harness per lab");
        }
    }

    @Test void compareCompileWithoutTorchCompileSaysSo() {
        assumeTrue(!torch.versions().compile(), "this torch has torch.compile: the GPU test covers compare-compile");
        var e = assertThrows(TorchException.class, () -> CompileComparison.run(torch.bridge(), "x:y", List.of(TensorSpec.of("x", DType.FP32, 4)),
                "default", false, QUICK, 1024));
        assertTrue(e.getMessage().contains("has no torch.compile"), e.getMessage());
        assertTrue(Set.of(TorchException.Kind.FAILED).contains(e.kind()));
    }
}
