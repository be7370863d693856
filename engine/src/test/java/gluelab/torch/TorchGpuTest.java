package gluelab.torch;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.backend.cuda.CudaDeviceProvider;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The bridge on a GPU with torch 2.x: compile rows, the CUDA-graph row, compile accounting, a failing compile. */
@Tag("gpu")
class TorchGpuTest {
    static Device gpu;
    static TorchSide torch;
    static String unusable;

    @BeforeAll static void start() {
        var noGpu = new CudaDeviceProvider().unavailableReason();
        if (noGpu.isPresent()) {
            unusable = "no usable GPU: " + noGpu.get();
            return;
        }
        gpu = Devices.open("cuda");
        TorchPython.useSharedInductorCache();
        try {
            torch = TorchSide.start((String) null, gpu);
            if (!torch.versions().compile()) unusable = torch.versions().compileReason();
        } catch (TorchException e) {
            unusable = "no torch with CUDA: " + e.getMessage();
        }
    }

    /** Each test reports as skipped, with the reason, where there is no GPU or no torch 2.x with CUDA. */
    @BeforeEach void usable() { assumeTrue(unusable == null, () -> unusable); }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (gpu != null) gpu.close();
    }

    static Calibration calibration() { return new Calibration("test", gpu.facts().name(), 0, 4e12, 4e12, 4e12, 4e12, 1e15, 0, "assumed", "", java.util.Map.of(), false); }

    @Test void rmsnormGetsEagerCompiledAndGraphRowsWithItsCompileCost() {
        BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.parse("rmsnorm")), List.of(4096L), List.of(Variant.FUSED),
                List.of(Pass.FORWARD, Pass.BACKWARD), DType.BF16, TorchBridgeTest.QUICK, 0);
        TorchSide.Combined c = torch.bench(plan, calibration(), new BenchResult(List.of(), List.of()), List.of(TorchVariant.values()), "default",
                Progress.NONE);
        for (Pass pass : List.of(Pass.FORWARD, Pass.BACKWARD)) {
            // Backward too: its graph row captures autograd.grad of a forward retained on the capture stream.
            var variants = c.torch().rows().stream().filter(r -> r.pass() == pass).map(r -> r.key().series()).toList();
            assertEquals(List.of("torch-eager", "torch-compile", "torch-compile graph"), variants, pass + ": " + c.torch().skipped());
        }
        assertEquals(List.of(), c.torch().skipped());
        // Both graphs were compiled first, in worker processes; the timed requests loaded them from the Inductor cache.
        assertEquals(2, c.torch().precompile().graphs(), c.torch().precompile().describe());
        assertEquals(List.of(), c.torch().precompile().failed());
        assertEquals(2, c.torch().compiles().size());
        for (CompileReport r : c.torch().compiles()) {
            assertFalse(r.failed(), r.error());
            assertTrue(r.graphs() >= 1 && r.seconds() > 0 && r.loadSeconds() > 0, r.toString());
            assertEquals(0, r.recompiles(), r.toString());
        }
        System.out.println(c.table().printAll());
        System.out.println(c.torch().precompile().describe());
        System.out.println(c.compiles().printAll());
    }

    @Test void aGraphBreakUnderFullgraphSkipsTheCompileRowsWithTheReason(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("breaks.py"), """
                import torch
                def f(x):
                    if x.sum().item() > 0:
                        return x * 2
                    return x
                """);
        TorchResult r = new TorchFunction(file + ":f", List.of(TensorSpec.of("x", DType.FP32, 1024)), "m").time(torch.bridge(), calibration(),
                torch.flushBytes(), Pass.FORWARD, List.of(TorchVariant.values()), "default", TorchBridgeTest.QUICK);
        assertEquals(List.of("torch-eager"), r.rows().stream().map(x -> x.key().series()).toList());
        assertTrue(r.skipped().getFirst().reason().startsWith("torch.compile failed: "), r.skipped().toString());
        assertTrue(r.compiles().getFirst().failed());
    }

    @Test void compareCompileOfAFourBlockModel(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("tiny.py"), """
                import torch
                class Block(torch.nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.lin = torch.nn.Linear(256, 256)
                    def forward(self, x):
                        return x + torch.nn.functional.silu(self.lin(x))
                def model():
                    return torch.nn.Sequential(*[Block() for _ in range(4)])
                """);
        CompileComparison c = CompileComparison.run(torch.bridge(), file + ":model", List.of(TensorSpec.of("x", DType.FP32, 64, 256)), null,
                "default", true, TorchBridgeTest.QUICK, torch.flushBytes());
        assertEquals(List.of("whole model", "per block"), c.arms().stream().map(CompileComparison.Arm::name).toList());
        assertEquals(4, c.arms().get(1).blocks());
        for (var a : c.arms()) {
            assertTrue(a.error().isEmpty(), a.error());
            assertTrue(a.graphs() >= 1 && a.runUs() > 0, a.toString());
        }
        assertTrue(c.compileRatio() > 0, c.text());
    }
}
