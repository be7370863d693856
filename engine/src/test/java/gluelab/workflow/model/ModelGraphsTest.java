package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.torch.ModelGraphs;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.graphbudget.BudgetResult;
import gluelab.workflow.graphbudget.GradMode;
import gluelab.workflow.graphbudget.RegionBudget;
import gluelab.workflow.graphbudget.RegionGraphs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 06 on the analyst's model with the real torch 2.13 CPU: dynamo's own count of the graphs a
 * region and a repeated block compile per call site x token count x grad mode. The counting tests use
 * the aot_eager backend (dynamo's graphs and guards are the backend's input, so the count is the same
 * and no C++ is compiled); the Llama-3 example runs Inductor, as the step does by default.
 */
@Tag("slow")
class ModelGraphsTest {
    static Device cpu;
    static TorchSide torch;

    /** A region called from a repeated block's forward (line 16), the blocks called from the stack's (line 26). */
    static final String TINY = """
            import torch
            from torch import nn


            def scale_shift(x, w):
                return x * w + 1.0


            class Block(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.lin = nn.Linear(d, d)
                    self.w = nn.Parameter(torch.ones(d))

                def forward(self, x):
                    return x + scale_shift(self.lin(x), self.w)


            class Stack(nn.Module):
                def __init__(self, d, n=2):
                    super().__init__()
                    self.layers = nn.ModuleList([Block(d) for _ in range(n)])

                def forward(self, x):
                    for layer in self.layers:
                        x = layer(x)
                    return x


            def build():
                torch.manual_seed(0)
                return Stack(8)
            """;

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    static ExperimentFolder planned(Path root, List<Long> tokens) throws Exception {
        Path file = root.resolve("tiny.py");
        Files.writeString(file, TINY);
        ExperimentFolder ex = ExperimentFolder.open("tiny", root.resolve("experiments"));
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(file.toString(), "build", "x:T,8:fp32", "", List.of("model.scale_shift")),
                tokens, 0.01, "cpu");
        return ex;
    }

    static ModelGraphs.Options options(Boolean dynamic, boolean noGrad, int limit) {
        return new ModelGraphs.Options(List.of(ModelTree.REGIONS, ModelTree.PER_BLOCK), dynamic, "aot_eager", noGrad, limit);
    }

    @Test void aRegionCompiledPerShapeHoldsOneGraphPerTokenCountAndTheCallsNameTheirSiteAndGuard(@TempDir Path root) throws Exception {
        ExperimentFolder ex = planned(root, List.of(16L, 32L, 48L));
        var r = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, options(false, false, 0), Progress.NONE);
        BudgetResult b = r.budget();
        assertEquals(8, b.limit(), "torch's own recompile limit");
        RegionGraphs region = b.region("model.scale_shift").orElseThrow(), block = b.region("block Block").orElseThrow();
        assertEquals(3, region.graphs(), r.text());
        assertEquals(3, block.graphs(), r.text());
        assertEquals(List.of("tiny.py:16 in forward"), region.sites(), "called from the block's forward, the same line in both layers");
        assertEquals(List.of("tiny.py:26 in forward"), block.sites());
        assertEquals(List.of(16L, 32L, 48L), region.tokens());
        assertEquals(List.of(GradMode.GRAD), region.modes());
        assertEquals("ok", region.status());
        // Each token count's first call compiles a graph, its second (the other layer) reuses it; the guard names the shape.
        var calls = r.graphs().tree(ModelTree.REGIONS).orElseThrow().calls();
        assertEquals(6, calls.size(), "2 layers x 3 token counts");
        for (long t : List.of(16L, 32L, 48L)) {
            var at = calls.stream().filter(c -> c.tokens() == t).toList();
            assertEquals(List.of(1, 0), at.stream().map(ModelGraphs.CallGraphs::compiled).toList(), "at " + t + ": " + at);
            assertEquals(1, at.getFirst().compileIds().size(), "dynamo's compile id of the graph: " + at.getFirst());
        }
        assertTrue(calls.get(2).guard().contains("size mismatch at index 0") && calls.get(2).guard().contains("actual 32"), calls.get(2).guard());
        assertTrue(region.source().contains("tiny.py:16 in forward @ 32 tokens grad: ") && region.source().contains("size mismatch"), region.source());

        assertTrue(ex.has(Step.GRAPH_BUDGET));
        assertEquals(3, RegionBudget.latest(ex).region("model.scale_shift").orElseThrow().graphs(), "budget.json in the catalogue's shape");
        assertEquals(2, ModelGraphsStep.load(ex).trees().size());
        assertTrue(Files.readString(ex.file(Step.GRAPH_BUDGET, ModelGraphsStep.SUMMARY)).contains("model.scale_shift"));
    }

    @Test void aNoGradPassAddsGraphsAndTheLimitNamesTheCallSiteAndGuardThatHitIt(@TempDir Path root) throws Exception {
        ExperimentFolder ex = planned(root, List.of(16L, 32L));
        var grad = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, options(false, false, 0), Progress.NONE).budget();
        var both = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, options(false, true, 0), Progress.NONE);
        RegionGraphs g = grad.region("model.scale_shift").orElseThrow(), b = both.budget().region("model.scale_shift").orElseThrow();
        assertEquals(2, g.graphs(), grad.summary());
        assertEquals(4, b.graphs(), "grad mode is a guard of its own: " + both.text());
        assertEquals(List.of(GradMode.GRAD, GradMode.NO_GRAD), b.modes());
        var noGrad = both.graphs().tree(ModelTree.REGIONS).orElseThrow().calls().stream().filter(c -> !c.grad()).toList();
        assertTrue(noGrad.getFirst().compiled() == 1 && noGrad.getFirst().guard().contains("grad_mode"), noGrad.getFirst().toString());

        // A limit of 3: the fourth graph (16 tokens under no_grad... 32 tokens under no_grad) is refused.
        var over = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, options(false, true, 3), Progress.NONE);
        RegionGraphs region = over.budget().region("model.scale_shift").orElseThrow(), block = over.budget().region("block Block").orElseThrow();
        assertEquals("over the limit", region.status(), over.text());
        assertEquals("over the limit", block.status(), over.text());
        assertTrue(region.source().contains("hit the recompile limit at tiny.py:16 in forward @ 32 tokens no_grad"), region.source());
        var regionsTree = over.graphs().tree(ModelTree.REGIONS).orElseThrow();
        assertTrue(regionsTree.failed() && regionsTree.error().contains("tiny.py:16"), "fullgraph=True fails at the limit, naming the model's line: " + regionsTree.error());
        assertEquals(7, regionsTree.calls().size(), "the calls before the failure are kept: " + regionsTree.calls());
        assertFalse(over.graphs().tree(ModelTree.PER_BLOCK).orElseThrow().failed(), "per-block compile falls back to eager past the limit");
    }

    /** Blind check: a recompile on an input that became None read as dynamo's raw text, its quote misplaced, in step 06's tables. */
    @Test void aRecompileOnAnInputThatBecameNoneSaysSo(@TempDir Path root) throws Exception {
        Path file = Files.writeString(root.resolve("tiny.py"), TINY
                .replace("    return x * w + 1.0", "    return x if w is None else x * w + 1.0")
                .replace("self.w = nn.Parameter(torch.ones(d))", "self.w = nn.Parameter(torch.ones(d)) if with_w else None")
                .replace("def __init__(self, d):", "def __init__(self, d, with_w=True):")
                .replace("[Block(d) for _ in range(n)]", "[Block(d, with_w=i == 0) for i in range(n)]"));
        ExperimentFolder ex = ExperimentFolder.open("none", root.resolve("experiments"));
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(file.toString(), "build", "x:T,8:fp32", "", List.of("model.scale_shift")),
                List.of(16L), 0.01, "cpu");
        var r = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelGraphs.Options(List.of(ModelTree.REGIONS), false, "aot_eager", false, 0), Progress.NONE);
        var second = r.graphs().tree(ModelTree.REGIONS).orElseThrow().calls().get(1);
        assertTrue(second.compiled() == 1 && second.guard().contains("NoneType"), "the second layer's call, w None, recompiles: " + second);
        String text = r.text();
        assertTrue(text.contains("input 'w' was None where its graph was compiled for a tensor"), text);
        assertFalse(r.budget().region("model.scale_shift").orElseThrow().source().contains(" grad: 0/0: expected type of"), "not dynamo's text alone: " + text);
        assertEquals("a guard on an input that was None: its graph was compiled for a tensor there, and dynamo's guard read its .size() "
                + "(dynamo: 'NoneType' object has no attribute 'size')", GuardReason.readable("'NoneType' object has no attribute 'size'"));
        assertEquals("tensor 'x' size mismatch at index 0. expected 16, actual 32", GuardReason.readable("tensor 'x' size mismatch at index 0. expected 16, actual 32"));
    }

    @Test void automaticDynamicShapesServeLaterTokenCountsFromOneGraph(@TempDir Path root) throws Exception {
        ExperimentFolder ex = planned(root, List.of(16L, 32L, 48L));
        var r = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, options(null, false, 0), Progress.NONE);
        assertEquals(2, r.budget().region("model.scale_shift").orElseThrow().graphs(), "a static graph for 16, a dynamic one for 32 and 48: " + r.text());
    }

    /** Step 06 builds the model once for the largest token count and calls it at every count: the example must take a shorter input. */
    @Test void theDeepSeekExampleBuiltForItsLargestTokenCountRunsAtTheSmallerOne(@TempDir Path root) throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("dsv3", root);
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(ModelPlanTest.EXAMPLES.resolve("deepseek_v3.py").toString(), "build", "x:T,64:fp32", "",
                List.of("model.norm_rope_cat")), List.of(16L, 32L), 0.01, "cpu");
        var options = new ModelGraphs.Options(List.of(ModelTree.REGIONS), false, "aot_eager", false, 0);
        var r = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, options, Progress.NONE);
        assertFalse(r.graphs().trees().getFirst().failed(), r.text());
        RegionGraphs region = r.budget().region("model.norm_rope_cat").orElseThrow();
        assertEquals(List.of(16L, 32L), region.tokens(), r.text());
        assertEquals(2, region.graphs(), "one graph a token count, the layers' calls sharing it: " + r.text());
    }

    @Test void aShapeErrorInsideARegionNamesItsCauseNotOnlyDynamosHeadline(@TempDir Path root) throws Exception {
        Path file = Files.writeString(root.resolve("bad.py"), TINY.replace("return x * w + 1.0", "return x.view(3, -1, 7) * 2.0"));
        ExperimentFolder ex = ExperimentFolder.open("bad", root.resolve("experiments"));
        // the plan's check runs eager, where the view fails too: planned on the good file, then the region's body breaks
        Path good = Files.writeString(root.resolve("good.py"), TINY);
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(good.toString(), "build", "x:T,8:fp32", "", List.of("model.scale_shift")),
                List.of(16L), 0.01, "cpu");
        Files.writeString(good, Files.readString(file));
        var r = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelGraphs.Options(List.of(ModelTree.REGIONS), false, "aot_eager", false, 0), Progress.NONE);
        var tree = r.graphs().tree(ModelTree.REGIONS).orElseThrow();
        assertTrue(tree.failed(), r.text());
        assertTrue(tree.error().contains("is invalid for input of size 128"), "the fake tensor call's own error: " + tree.error());
    }

    @Test void theLlamaExamplesRopeRegionUnderInductor(@TempDir Path root) throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("llama", root);
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(ModelPlanTest.EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                List.of("model.Attention.rope")), List.of(16L, 32L), 0.01, "cpu");
        var options = new ModelGraphs.Options(List.of(ModelTree.REGIONS), null, "inductor", true, 0);
        var r = ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, options, Progress.NONE);
        RegionGraphs rope = r.budget().region("model.Attention.rope").orElseThrow();
        assertFalse(r.graphs().trees().getFirst().failed(), r.text());
        assertTrue(rope.graphs() >= 2 && rope.ok(), "a graph per grad mode at least, within the aim: " + r.text());
        assertTrue(rope.sites().getFirst().startsWith("llama3.py:") && rope.sites().getFirst().endsWith(" in forward"), rope.sites().toString());
        assertEquals(List.of(GradMode.GRAD, GradMode.NO_GRAD), rope.modes());
    }
}
