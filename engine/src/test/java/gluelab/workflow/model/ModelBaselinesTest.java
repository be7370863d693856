package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelEntry;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 01 on the shipped example models at tiny dims with the real torch 2.13 CPU and torch.compile
 * (Inductor's CPU backend): every tree is a row, compiled trees count their compiles, a tree that
 * fails is a row with its reason and no ratio, and the rows are kept in the experiment.
 */
@Tag("slow")
class ModelBaselinesTest {
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 1.0, 50), 1);
    @TempDir static Path root;
    static Device cpu;
    static TorchSide torch;
    static ExperimentFolder ex;
    static ModelBaselines b;

    /** One experiment for the class: planned and baselined once, each test reads it (one Inductor cache for the run). */
    @BeforeAll static void baselineOnce() {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
        ex = ExperimentFolder.open("llama", root);
        ModelSubject s = new ModelSubject(ModelPlanTest.EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                List.of("model.Attention.rope"));
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, s, List.of(16L), 0.05, "cpu");
        b = ModelBaselinesStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, QUICK, torch.flushBytes(), Progress.NONE);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    @Test void everyTreeOfTheLlamaStackIsARowKeptInTheExperiment() throws Exception {
        assertEquals(List.of(ModelTree.EAGER, ModelTree.PER_BLOCK, ModelTree.WHOLE, ModelTree.REGIONS), b.rows().stream().map(ModelBaselines.Row::tree).toList());
        for (ModelBaselines.Row r : b.rows()) {
            assertFalse(r.failed(), b.text());
            assertEquals(16, r.tokens());
            assertTrue(r.wallUs() > 0 && r.run().samples().length >= 1, b.text());
            assertTrue(Double.isNaN(r.kernelSeconds()) && r.kernelSkip().contains("needs CUDA"), "kernel time is CUDA's: " + r.kernelSkip());
            assertTrue(r.peakBytes() < 0 && !r.peakSkip().isEmpty(), r.peakSkip());
            if (r.tree().compiled()) {
                assertTrue(r.compile().seconds() > 0 && r.compile().graphs() >= 1, r.tree() + ": " + b.text());
                assertTrue(b.speedupOverEager(r) > 0, b.text());
            }
        }
        assertEquals(2, b.row(ModelTree.PER_BLOCK, 16).orElseThrow().blocks(), "the ModuleDict's two layers");
        assertEquals("TransformerBlock", b.row(ModelTree.PER_BLOCK, 16).orElseThrow().blockType());
        assertTrue(b.text().contains("skipped: kernel time needs CUDA"), b.text());

        ModelBaselines back = ModelBaselinesStep.load(ex);
        assertEquals(b.rows().size(), back.rows().size());
        assertEquals(b.rows().get(1).wallUs(), back.rows().get(1).wallUs(), 1e-9);
        assertEquals(b.rows().get(1).compile().graphs(), back.rows().get(1).compile().graphs());
        assertEquals(b.rows().get(1).graph().skip(), back.rows().get(1).graph().skip());
        assertTrue(ex.has(Step.BASELINES));
        assertTrue(Files.readString(ex.devlog().file()).contains("per-block @ 16 tokens fwd+bwd"), "a devlog line per row");
    }

    @Test void theGraphReplayRowsAreSkippedOnTheCpuWithTheReason() throws Exception {
        for (ModelBaselines.Row r : b.rows()) {
            assertNull(r.graph().run(), r.tree() + ": no replay on the CPU");
            assertFalse(r.graph().failed(), r.graph().error());
            assertEquals("CUDA-graph replay needs CUDA (the CPU has no graphs)", r.graph().skip());
            assertTrue(Double.isNaN(b.graphSpeedupOverEager(r)));
        }
        assertTrue(b.text().contains("skipped: CUDA-graph replay needs CUDA"), b.text());
        assertFalse(b.text().contains(" graph  "), "no graph line without a replay: " + b.text());
        assertTrue(Files.readString(ex.devlog().file()).contains("graph replay skipped: CUDA-graph replay needs CUDA"), "the devlog says why");
    }

    /** A stack whose module function branches on data: a graph break, an error under the regions' fullgraph=True. */
    static final String BRANCHING = """
            import torch

            def gate(x):
                if x.sum() > 0:
                    return x * 2
                return x

            class Block(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = torch.nn.Linear(8, 8)

                def forward(self, x):
                    return gate(self.lin(x))

            class Stack(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = torch.nn.ModuleDict({"0": Block(), "1": Block()})

                def forward(self, x):
                    for layer in self.layers.values():
                        x = layer(x)
                    return x

            def build(T):
                return Stack()
            """;

    @Test void aTreeThatFailsIsARowWithItsReasonAndNoRatio(@TempDir Path dir) throws Exception {
        ModelEntry entry = ModelEntry.parse(Files.writeString(dir.resolve("branching.py"), BRANCHING) + ":build");
        Map<Long, List<TensorSpec>> at = Map.of(16L, List.of(TensorSpec.of("x", gluelab.tensor.DType.FP32, 16, 8)));
        ModelBaselines broken = ModelBaselines.run(torch.bridge(), entry, at, List.of(ModelTree.EAGER, ModelTree.REGIONS),
                List.of("model.gate"), "", QUICK, torch.flushBytes(), Progress.NONE);
        var regions = broken.row(ModelTree.REGIONS, 16).orElseThrow();
        assertTrue(regions.failed() && regions.run() == null, broken.text());
        assertFalse(regions.error().isEmpty(), broken.text());
        assertFalse(regions.error().contains("\n"), regions.error());
        assertTrue(regions.error().contains("branching.py:"), "names the line of the model that raised: " + regions.error());
        assertTrue(Double.isNaN(broken.speedupOverEager(regions)));
        assertTrue(broken.text().contains("FAILED: "), broken.text());
        assertFalse(broken.row(ModelTree.EAGER, 16).orElseThrow().failed(), "eager is measured beside the failed tree: " + broken.text());

        ModelBaselines missing = ModelBaselines.run(torch.bridge(), entry, at, List.of(ModelTree.REGIONS), List.of("model.Block.nope"), "", QUICK,
                torch.flushBytes(), Progress.NONE);
        assertEquals("region model.Block.nope: model.Block has no attribute 'nope'", missing.rows().getFirst().error(), missing.text());
    }
}
