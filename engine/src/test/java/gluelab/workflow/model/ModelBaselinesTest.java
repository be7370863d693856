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
        b = ModelBaselinesStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, QUICK, torch.flushBytes(), Progress.NONE);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    @Test void everyTreeOfTheLlamaStackIsARowKeptInTheExperiment() throws Exception {
        assertEquals(List.of(ModelTree.EAGER, ModelTree.PER_BLOCK, ModelTree.WHOLE, ModelTree.REGIONS), b.rows().stream().map(ModelBaselines.Row::tree).toList());
        for (ModelBaselines.Row r : b.rows()) {
            assertFalse(r.failed(), ModelBaselinesStep.text(b));
            assertEquals(16, r.tokens());
            assertTrue(r.wallUs() > 0 && r.run().samples().length >= 1, ModelBaselinesStep.text(b));
            assertTrue(Double.isNaN(r.kernelSeconds()) && r.kernelSkip().contains("needs CUDA"), "kernel time is CUDA's: " + r.kernelSkip());
            assertTrue(r.peakBytes() < 0 && !r.peakSkip().isEmpty(), r.peakSkip());
            if (r.tree().compiled()) {
                assertTrue(r.compile().seconds() > 0 && r.compile().graphs() >= 1, r.tree() + ": " + ModelBaselinesStep.text(b));
                assertTrue(b.speedupOverEager(r) > 0, ModelBaselinesStep.text(b));
            }
        }
        assertEquals(2, b.row(ModelTree.PER_BLOCK, 16).orElseThrow().blocks(), "the ModuleDict's two layers");
        assertEquals("TransformerBlock", b.row(ModelTree.PER_BLOCK, 16).orElseThrow().blockType());
        assertTrue(ModelBaselinesStep.text(b).contains("skipped: kernel time needs CUDA"), ModelBaselinesStep.text(b));

        ModelBaselines back = ModelBaselinesStep.load(ex);
        assertEquals(b.rows().size(), back.rows().size());
        assertEquals(b.rows().get(1).wallUs(), back.rows().get(1).wallUs(), 1e-9);
        assertEquals(b.rows().get(1).compile().graphs(), back.rows().get(1).compile().graphs());
        assertEquals(b.rows().get(1).graph().skip(), back.rows().get(1).graph().skip());
        assertTrue(ex.has(Step.BASELINES));
        assertTrue(Files.readString(ex.devlog().file()).contains("per-block @ 16 tokens fwd+bwd"), "a devlog line per row");
    }

    /** "0.25x" left the reader to guess which side was divided by which: each ratio says its direction and its two sides. */
    @Test void eachRatioSaysItsDirectionAndItsSides() throws Exception {
        String text = ModelBaselinesStep.text(b);
        var table = ModelTables.baselines(b);
        for (ModelBaselines.Row r : b.rows()) {
            if (!r.tree().compiled()) continue;
            String ratio = ModelBaselinesStep.vsEager(b, r, "(noisy)");
            var eager = b.row(ModelTree.EAGER, r.tokens()).orElseThrow();
            if (gluelab.timing.Noise.within(r.wallUs() / eager.wallUs() - 1, gluelab.timing.Noise.of(r.run().noise(), eager.run().noise()))) {
                assertTrue(ratio.matches("inconclusive: [-+]\\d+\\.\\d% is within the noise \\(\\d+\\.\\d%\\) \\(" + r.tree().id() + " vs eager\\)( \\(noisy\\))?"), ratio);
                assertTrue(table.stringColumn("vs_eager").asList().contains(ratio), table.print());
                continue;
            }
            assertTrue(ratio.matches("\\d+\\.\\d\\dx (faster|slower) \\(" + r.tree().id() + " vs eager\\)( \\(noisy\\))?"), ratio);
            double eagerOverTree = b.speedupOverEager(r);
            assertEquals(eagerOverTree >= 1 ? "faster" : "slower", ratio.split(" ")[1], "the direction is the times': " + ratio);
            double shown = Double.parseDouble(ratio.substring(0, ratio.indexOf('x')));
            assertEquals(eagerOverTree >= 1 ? eagerOverTree : 1 / eagerOverTree, shown, 0.006, "a slower tree shows how many times slower: " + ratio);
            assertTrue(text.lines().anyMatch(l -> l.contains(" " + r.tree().id() + " ") && l.contains(ratio.split(" \\(noisy")[0])), text);
            assertTrue(table.stringColumn("vs_eager").asList().contains(ratio), table.print());
        }
        assertFalse(text.matches("(?s).*\\dx(?! (faster|slower) \\().*"), "no bare ratio: " + text);
        String summary = ex.require(Step.BASELINES).summary();
        assertEquals("4 rows of llama3.py:build (4 trees x 1 token count)", summary.replaceFirst("; " + StepQuiet.BUSY + ": .*", ""), "one token count, singular");
        assertEquals(!StepQuiet.of(ex, Step.BASELINES).orElseThrow().quiet(), summary.contains("; " + StepQuiet.BUSY + ": "), "a busy machine ends the summary: " + summary);
    }

    @Test void theGraphReplayRowsAreSkippedOnTheCpuWithTheReason() throws Exception {
        for (ModelBaselines.Row r : b.rows()) {
            assertNull(r.graph().run(), r.tree() + ": no replay on the CPU");
            assertFalse(r.graph().failed(), r.graph().error());
            assertEquals("CUDA-graph replay needs CUDA (the CPU has no graphs)", r.graph().skip());
            assertTrue(Double.isNaN(b.graphSpeedupOverEager(r)));
        }
        String text = ModelBaselinesStep.text(b);
        assertTrue(text.contains("skipped: CUDA-graph replay needs CUDA"), text);
        assertFalse(text.contains(" graph  "), "no graph line without a replay: " + text);
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
        assertTrue(regions.failed() && regions.run() == null, ModelBaselinesStep.text(broken));
        assertFalse(regions.error().isEmpty(), ModelBaselinesStep.text(broken));
        assertFalse(regions.error().contains("\n"), regions.error());
        assertTrue(regions.error().contains("branching.py:"), "names the line of the model that raised: " + regions.error());
        assertTrue(Double.isNaN(broken.speedupOverEager(regions)));
        assertTrue(ModelBaselinesStep.text(broken).contains("FAILED: "), ModelBaselinesStep.text(broken));
        assertTrue(ModelBaselinesStep.text(broken).lines().filter(l -> l.contains("regions")).noneMatch(l -> l.contains("faster") || l.contains("slower")),
                "never a ratio against a failed arm: " + ModelBaselinesStep.text(broken));
        assertFalse(broken.row(ModelTree.EAGER, 16).orElseThrow().failed(), "eager is measured beside the failed tree: " + ModelBaselinesStep.text(broken));

        ModelBaselines missing = ModelBaselines.run(torch.bridge(), entry, at, List.of(ModelTree.REGIONS), List.of("model.Block.nope"), "", QUICK,
                torch.flushBytes(), Progress.NONE);
        assertEquals("region model.Block.nope: model.Block has no attribute 'nope'", missing.rows().getFirst().error(), ModelBaselinesStep.text(missing));
    }
}
