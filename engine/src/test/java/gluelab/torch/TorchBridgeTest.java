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
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The bridge for real with the Python the product's rule finds (CI: GLUELAB_PYTHON, its virtual
 * environment's torch 2.13 CPU build, whose torch.compile runs Inductor's CPU backend with gcc): eager
 * and compiled rows, compile accounting, compare-compile and dynamo's logs. Shapes are tiny and the
 * suite shares one Inductor cache, so each graph is compiled once.
 */
@Tag("slow")
public class TorchBridgeTest {
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(5, 0.002, 0.5, 0.3, 200), 2);
    static PythonChoice python;
    static String PYTHON;
    static Device cpu;
    static TorchSide torch;

    /** A Python with torch exists (the CLI's torch tests skip otherwise). */
    public static boolean hasTorchForCli() { return TorchPython.find() != null; }

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        python = TorchPython.find();
        assumeTrue(python != null, () -> "no Python with torch for the torch tests: " + TorchPython.whyMissing());
        PYTHON = python.python().toString();
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    static void assumeCompile() { assumeTrue(torch.versions().compile(), () -> TorchPython.whyNoCompile()); }

    /** An assumed bandwidth: these tests check rows and floors' bytes, not speed. */
    static Calibration calibration() { return new Calibration("test", cpu.facts().name(), 0, 10e9, 10e9, 15e9, 15e9, 100e9, 0, "assumed", "", java.util.Map.of(), false); }

    @Test void versionsNameTorchAndWhyCompileIsMissing() {
        TorchVersions v = torch.versions();
        assertFalse(v.torch().isEmpty());
        assertEquals("cpu", v.device());
        if (!v.compile()) assertTrue(v.compileReason().contains("has no torch.compile"), v.compileReason());
        assertTrue(v.describe().startsWith("torch " + v.torch()), v.describe());
        assertTrue(v.threads() >= 1, "torch's CPU threads are kept: " + v);
        assertTrue(v.describe().contains(", " + v.threads() + " CPU thread"), "and shown, as CPU times depend on them: " + v.describe());
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
        } else {
            // torch.compile for real: a compiled row beside each eager one, its compile accounted, the CUDA-graph row skipped on the CPU.
            assertEquals(3, torchRows.stream().filter(r -> r.variant() == Variant.TORCH_COMPILE).count(), c.table().printAll());
            assertEquals(3, c.torch().compiles().size());
            for (CompileReport r : c.torch().compiles()) {
                assertTrue(r.graphs() >= 1 && r.seconds() > 0 && r.error().isEmpty(), r.toString());
                assertEquals(0, r.recompiles(), r.toString());
            }
            assertTrue(c.torch().skipped().stream().allMatch(s -> s.variant().equals("torch-compile-graph") && s.reason().contains("need a GPU")),
                    c.torch().skipped().toString());
            assertTrue(c.table().columnNames().stream().anyMatch(n -> n.matches("torch-compile \\((us|ms|s)\\)")), c.table().columnNames().toString());
            assertTrue(c.compiles().columnNames().containsAll(List.of("graphs", "graph_breaks", "recompiles")));
            assertTrue(c.compiles().columnNames().stream().anyMatch(n -> n.matches("compile \\((us|ms|s)\\)")), c.compiles().columnNames().toString());
        }
        for (String variant : List.of("eager", "torch-eager")) {
            assertTrue(c.table().columnNames().stream().anyMatch(n -> n.matches(variant + " \\((us|ms|s)\\)")), c.table().columnNames().toString());
        }
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
            assertTrue(crash.getMessage().contains("exited with code 3"), crash.getMessage());
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
            List<String> expected = torch.versions().compile() ? List.of("eager", "fused", "torch-eager", "torch-compile") : List.of("eager", "fused", "torch-eager");
            assertEquals(expected, r.rows().stream().map(x -> x.key().series()).toList());
            assertSame(lab.torch(PYTHON), lab.torch(), "one torch side per lab: the named Python is the one the rule finds here");
            assertEquals(python.python(), lab.torch().python().python());
        }
    }

    @Test void aGraphBreakFailsTheFullgraphCompileRowWithItsReason(@TempDir Path dir) throws Exception {
        assumeCompile();
        Path file = Files.writeString(dir.resolve("breaks.py"), """
                import torch
                def two_graphs(x):
                    y = torch.relu(x) + 1
                    torch._dynamo.graph_break()
                    return y * 2
                """);
        TorchResult r = new TorchFunction(file + ":two_graphs", List.of(TensorSpec.of("x", DType.FP32, 8, 16)), "custom")
                .time(torch.bridge(), calibration(), torch.flushBytes(), Pass.FORWARD, List.of(TorchVariant.EAGER, TorchVariant.COMPILE), "default", QUICK);
        assertEquals(List.of(Variant.TORCH_EAGER), r.rows().stream().map(Row::variant).toList(), "the eager row is still measured");
        CompileReport c = r.compiles().getFirst();
        assertFalse(c.error().isEmpty(), c.toString());
        assertTrue(r.skipped().stream().anyMatch(s -> s.variant().equals("torch-compile") && s.reason().startsWith("torch.compile failed: ")), r.skipped().toString());
    }

    /** Three stacks of one block, in each of the containers models keep their layers in; the block's int attribute makes dynamo recompile per block. */
    static final String STACKS = """
            import torch
            class Block(torch.nn.Module):
                def __init__(self, i):
                    super().__init__()
                    self.idx = i
                    self.lin = torch.nn.Linear(16, 16)
                def forward(self, x):
                    return x + torch.relu(self.lin(x)) * (self.idx + 1)
            class ListStack(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleList([Block(i) for i in range(3)])
                def forward(self, x):
                    for b in self.layers:
                        x = b(x)
                    return x
            class DictStack(torch.nn.Module):
                # torchtitan's layout
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleDict({str(i): Block(i) for i in range(3)})
                def forward(self, x):
                    for b in self.layers.values():
                        x = b(x)
                    return x
            class BreakingStack(DictStack):
                def forward(self, x):
                    x = super().forward(x)
                    print("a print is a graph break")
                    return x
            def module_list():
                return ListStack()
            def sequential():
                return torch.nn.Sequential(*[Block(i) for i in range(3)])
            def module_dict():
                return DictStack()
            def breaking():
                return BreakingStack()
            class OneLayer(DictStack):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleDict({"0": Block(0)})
            def one_layer():
                return OneLayer()
            """;

    static CompileComparison compare(Path file, String factory, String blocks, boolean fullgraph) {
        return CompileComparison.run(torch.bridge(), file + ":" + factory, List.of(TensorSpec.of("x", DType.FP32, 8, 16)), blocks, "default",
                fullgraph, QUICK, torch.flushBytes());
    }

    @Test void compareCompileFindsTheBlocksOfModuleListSequentialAndModuleDictStacks(@TempDir Path dir) throws Exception {
        assumeCompile();
        Path file = Files.writeString(dir.resolve("stacks.py"), STACKS);
        for (String factory : List.of("module_list", "sequential", "module_dict")) {
            CompileComparison c = compare(file, factory, null, false);
            assertEquals(List.of("whole model", "per block"), c.arms().stream().map(CompileComparison.Arm::name).toList());
            var whole = c.arms().get(0);
            var perBlock = c.arms().get(1);
            assertEquals(3, perBlock.blocks(), factory + ": " + c.text());
            assertEquals("Block", perBlock.blockType());
            for (var a : c.arms()) assertTrue(!a.failed() && a.graphs() >= 1 && a.runUs() > 0, factory + ": " + c.text());
            assertEquals(0, whole.recompiles(), c.text());
            // Each block's idx is a constant to dynamo: blocks 1 and 2 recompile block 0's forward (the log says why).
            assertEquals(2, perBlock.recompiles(), factory + ": " + c.text());
            assertTrue(c.compileRatio() > 0, c.text());
            assertTrue(c.text().contains("whole model / per block compile time"), c.text());
        }
        // A stack of one layer (DeepSeek-V3's at real dims): the per-block arm compiles that layer.
        CompileComparison one = compare(file, "one_layer", null, false);
        assertEquals(1, one.arms().get(1).blocks(), one.text());
        assertFalse(one.arms().get(1).failed(), one.text());
    }

    @Test void aFailedArmIsARowWithItsReasonAndNoRatio(@TempDir Path dir) throws Exception {
        assumeCompile();
        Path file = Files.writeString(dir.resolve("stacks.py"), STACKS);
        CompileComparison named = compare(file, "module_dict", "layers", false);
        assertEquals(3, named.arms().get(1).blocks(), named.text());
        assertFalse(named.arms().get(1).failed(), named.text());

        CompileComparison noBlocks = compare(file, "module_dict", "layers.nope", false);
        var perBlock = noBlocks.arms().get(1);
        assertTrue(perBlock.failed(), noBlocks.text());
        assertTrue(perBlock.error().contains("--blocks layers.nope: model.layers has no attribute 'nope'"), perBlock.error());
        assertFalse(noBlocks.arms().get(0).failed(), noBlocks.text());
        assertTrue(Double.isNaN(noBlocks.compileRatio()));
        assertFalse(noBlocks.text().contains("whole model / per block"), noBlocks.text());
        assertTrue(noBlocks.text().contains("no compile-time ratio: the per block arm failed"), noBlocks.text());

        // Without fullgraph the break splits the whole model's graph: counted by dynamo and read back from its captured TORCH_LOGS.
        CompileComparison split = compare(file, "breaking", null, false);
        var whole = split.arms().get(0);
        assertFalse(whole.failed(), split.text());
        assertTrue(whole.graphBreaks() >= 1, split.text());
        assertFalse(whole.budget().graphBreaks().isEmpty(), "the graph break read from the captured TORCH_LOGS: " + whole.budget());

        // A graph break outside the blocks under fullgraph: the whole model fails, the blocks compile.
        CompileComparison broken = compare(file, "breaking", null, true);
        assertTrue(broken.arms().get(0).failed(), broken.text());
        assertFalse(broken.arms().get(0).error().isEmpty(), broken.text());
        assertFalse(broken.arms().get(1).failed(), broken.text());
        assertTrue(Double.isNaN(broken.compileRatio()));
        assertFalse(broken.text().contains("whole model / per block"), broken.text());
    }
}
