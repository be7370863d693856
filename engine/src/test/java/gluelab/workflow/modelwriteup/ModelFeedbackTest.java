package gluelab.workflow.modelwriteup;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelGraphs;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.FeedbackKind;
import gluelab.workflow.feedback.SkillFeedback;
import gluelab.workflow.graphbudget.BudgetResult;
import gluelab.workflow.graphbudget.RegionBudget;
import gluelab.workflow.model.ModelBaselinesStep;
import gluelab.workflow.model.ModelGraphsStep;
import gluelab.workflow.model.ModelPlan;
import gluelab.workflow.stack.GraphCount;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 11's surprises in the model's own numbers, with the real torch 2.13 CPU, where a blind check found none said: a
 * compiled tree slower than eager (step 01) and a region past the recompile limit (step 06). The model's blocks sleep
 * 10 ms only when dynamo traces them (a graph break that runs on every compiled call), so the compiled trees are slower.
 */
@Tag("slow")
class ModelFeedbackTest {
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 1.0, 50), 1);
    static final String SLOW_WHEN_COMPILED = """
            import time
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
                    if torch.compiler.is_compiling():
                        time.sleep(0.01)
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

    @Test void aCompiledTreeSlowerThanEagerAndARegionPastTheLimitAreOneItemEachNamingTheStepTheRowAndTheFigure(@TempDir Path root) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        Path file = Files.writeString(root.resolve("slow.py"), SLOW_WHEN_COMPILED);
        ExperimentFolder ex = ExperimentFolder.open("slow", root.resolve("experiments"));
        try (Device cpu = Devices.open("cpu"); TorchSide torch = TorchSide.start(python, cpu)) {
            ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(file.toString(), "build", "x:T,8:fp32", "", List.of("model.scale_shift")),
                    List.of(16L, 32L), 0.01, "cpu");
            ModelBaselinesStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, QUICK, 0, Progress.NONE);
            // A limit of 3 with grad and no_grad at two token counts: the region needs 4 graphs.
            ModelGraphsStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelGraphs.Options(List.of(ModelTree.REGIONS, ModelTree.PER_BLOCK), false,
                    "aot_eager", true, 3), Progress.NONE);
        }

        List<FeedbackItem> slower = ModelFeedback.slowerThanEager(ModelBaselinesStep.load(ex));
        for (ModelTree tree : List.of(ModelTree.PER_BLOCK, ModelTree.WHOLE)) {
            for (long t : List.of(16L, 32L)) {
                List<FeedbackItem> mine = slower.stream().filter(i -> i.proposal().startsWith("step 01: the " + tree.id() + " tree is slower than eager at " + t + " tokens, ")).toList();
                assertEquals(1, mine.size(), SkillFeedback.markdown(slower));
                assertTrue(mine.getFirst().proposal().matches(".*\\d+\\.\\d\\dx slower \\(" + tree.id() + " vs eager\\).*: \\d+\\.\\d us \\(noise \\d+\\.\\d%\\) vs eager \\d+\\.\\d us "
                        + "\\(noise \\d+\\.\\d%\\).*"), "both times with their noise: " + mine.getFirst().proposal());
                assertTrue(mine.getFirst().evidence().getFirst().startsWith("step 01, row " + tree.id() + " @ " + t + " tokens: "), mine.getFirst().evidence().toString());
            }
        }
        assertTrue(slower.stream().noneMatch(i -> i.proposal().startsWith("step 01: the eager tree")), "eager is the reference, never slower than itself");

        BudgetResult budget = RegionBudget.latest(ex);
        List<FeedbackItem> over = ModelFeedback.overTheLimit(budget).stream().filter(i -> i.proposal().contains("region model.scale_shift ")).toList();
        assertEquals(1, over.size(), SkillFeedback.markdown(ModelFeedback.overTheLimit(budget)));
        assertEquals(FeedbackKind.COMPILE_LIMIT, over.getFirst().kind());
        assertTrue(over.getFirst().proposal().startsWith("step 06: region model.scale_shift recompiled past the limit, 4 graphs of 3 "), over.getFirst().proposal());
        assertTrue(over.getFirst().evidence().getFirst().contains("hit the recompile limit at slow.py:"), "the call where it hit the limit: " + over.getFirst().evidence());

        // The method's own item for the same region (no step, no call) gives way to step 06's.
        List<FeedbackItem> method = SkillFeedback.collect(List.of(), null, null, budget.regions().stream().map(r -> new GraphCount(r.region(), r.graphs(), r.limit())).toList());
        assertTrue(method.stream().anyMatch(i -> i.proposal().startsWith("region model.scale_shift needs ")), SkillFeedback.markdown(method));
        assertTrue(ModelFeedback.withoutPlainLimitItems(method, budget).stream().noneMatch(i -> i.proposal().startsWith("region model.scale_shift needs ")));
    }
}
