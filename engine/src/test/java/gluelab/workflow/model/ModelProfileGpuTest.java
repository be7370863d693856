package gluelab.workflow.model;

import gluelab.backend.cuda.CudaDeviceProvider;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.floor.FlopPeak;
import gluelab.floor.OpKind;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.torch.TorchException;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.trace.KernelTotals;
import gluelab.trace.Trace;
import gluelab.trace.TraceReader;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The model subject's steps 01 and 03-04 on a GPU with torch's CUDA build (the GPU host's python3):
 * the trace import's per-kernel totals equal torch's key_averages() of the same run; every tree gets a
 * CUDA-graph replay row of its whole fwd+bwd step; GEMMs and attention are floored by the device's
 * tensor-core peak. The model is written here (bf16, a ModuleDict of two blocks), so the kit needs no
 * checkout beside it. Skipped, with the reason, where there is no GPU or no torch with CUDA (CI).
 */
@Tag("gpu")
class ModelProfileGpuTest {
    static final String MODEL = """
            import torch
            import torch.nn.functional as F
            from torch import nn

            D, HEADS = 1024, 8

            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.Parameter(torch.ones(D))
                    self.qkv = nn.Linear(D, 3 * D, bias=False)
                    self.out = nn.Linear(D, D, bias=False)

                def forward(self, x):
                    h = x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).type_as(x) * self.norm
                    q, k, v = self.qkv(h).view(1, x.shape[1], 3, HEADS, D // HEADS).unbind(2)
                    o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
                    return x + self.out(o.transpose(1, 2).reshape(1, x.shape[1], D))

            class Stack(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleDict({"0": Block(), "1": Block()})

                def forward(self, x):
                    h = x.unsqueeze(0)
                    for layer in self.layers.values():
                        h = layer(h)
                    return h.squeeze(0)

            def build(T):
                torch.manual_seed(0)
                return Stack().to(torch.bfloat16)
            """;
    static final long T = 2048;

    @TempDir static Path root;
    static Device gpu;
    static TorchSide torch;
    static String unusable;
    static ExperimentFolder ex;

    @BeforeAll static void start() throws Exception {
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
            return;
        }
        if (unusable != null) return;
        Path model = Files.writeString(root.resolve("stack.py"), MODEL);
        ex = ExperimentFolder.open("stack", root.resolve("experiments"));
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(model.toString(), "build", "x:T,1024:bf16", "", List.of()),
                List.of(T), 0.01, "cuda");
    }

    @BeforeEach void usable() { assumeTrue(unusable == null, () -> unusable); }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (gpu != null) gpu.close();
    }

    @Test void theTracesKernelTotalsEqualTorchsKeyAveragesAndGemmsHaveTheirFlopFloor() {
        var result = ModelProfileStep.run(ex, gpu, torch.bridge(), Presets.LLAMA_3_8B, 4e12, Progress.NONE);
        for (ModelProfile.TreeProfile t : result.profile().trees()) {
            assertFalse(t.failed(), t.tree() + ": " + t.error());
            Trace trace = TraceReader.read(Path.of(t.trace()));
            Map<String, ModelProfile.KeyAverage> kernels = new LinkedHashMap<>();
            for (var k : t.keyAverages()) if (k.device().equals("cuda") && !k.annotation() && !k.key().startsWith("Memcpy") && !k.key().startsWith("Memset")) kernels.put(k.key(), k);
            assertFalse(trace.kernels().isEmpty(), t.tree() + ": kernels in the trace");
            for (KernelTotals k : trace.kernels()) {
                var torchs = kernels.get(k.name());
                assertNotNull(torchs, t.tree() + ": kernel " + k.name() + " is in the trace, not in key_averages()");
                assertEquals(torchs.count(), k.count(), t.tree() + ": launches of " + k.name());
                assertEquals(torchs.deviceUs(), k.totalUs(), 1e-3 * k.count() + 1e-6 * k.totalUs(), t.tree() + ": total us of " + k.name());
            }
            assertEquals(kernels.size(), trace.kernels().size(), t.tree() + ": every kernel torch counts is in the trace: " + kernels.keySet());
            double torchTotal = kernels.values().stream().mapToDouble(ModelProfile.KeyAverage::deviceUs).sum();
            assertEquals(torchTotal, trace.kernelMicros(), 1e-3 * trace.kernelCount() + 1e-6 * torchTotal, t.tree() + ": kernel time");
        }
        ModelProfile.TreeProfile eager = result.profile().tree(ModelTree.EAGER).orElseThrow();
        assertTrue(eager.rows().stream().anyMatch(r -> r.kind() == OpKind.GEMM && r.flops() > 0 && r.dtype().equals("bf16")), "a bf16 GEMM with FLOPs");
        assertTrue(eager.rows().stream().anyMatch(r -> r.kind() == OpKind.ATTENTION && r.flops() > 0), "attention with FLOPs");
        assertTrue(eager.rows().stream().anyMatch(r -> r.location().startsWith("Block.forward (stack.py:")), "statement lines on the GPU too");
        var cal = new gluelab.calibrate.Calibrator(gpu, gluelab.files.Locations.calibrationCache()).calibrate(false);
        FlopPeak peak = FlopPeak.of(cal, gpu.capabilities());
        assertTrue(peak.basis().contains("tensor-core"), peak.basis());
        var ranking = ModelRankStep.run(ex, ModelTree.EAGER, cal.bandwidth(), peak);
        assertTrue(ranking.worthFixing().stream().allMatch(c -> c.kind() == OpKind.GLUE), ranking.text(30));
        System.out.println("MODEL-RANK-GPU\n" + ranking.text(15));
    }

    @Test void everyTreeGetsAGraphReplayRowOfItsWholeStep() {
        ModelBaselines b = ModelBaselinesStep.run(ex, gpu, torch.bridge(), Presets.LLAMA_3_8B, ModelBaselinesTest.QUICK, torch.flushBytes(), Progress.NONE);
        System.out.println("MODEL-BASELINES-GPU\n" + ModelBaselinesStep.text(b));
        for (ModelBaselines.Row r : b.rows()) {
            assertFalse(r.failed(), ModelBaselinesStep.text(b));
            assertFalse(r.graph().failed(), r.tree() + ": " + r.graph().error());
            assertNotNull(r.graph().run(), r.tree() + ": " + r.graph().skip());
            assertTrue(r.graph().wallUs() > 0, ModelBaselinesStep.text(b));
            assertTrue(b.graphSpeedupOverEager(r) > 0, ModelBaselinesStep.text(b));
            assertTrue(r.kernelSeconds() > 0 && r.peakBytes() > 0, ModelBaselinesStep.text(b));
        }
        assertTrue(ModelBaselinesStep.text(b).contains(" graph "), ModelBaselinesStep.text(b));
    }
}
