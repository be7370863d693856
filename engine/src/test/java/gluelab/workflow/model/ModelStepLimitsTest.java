package gluelab.workflow.model;

import gluelab.model.Presets;
import gluelab.ops.Replay;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelCorrectness;
import gluelab.torch.ModelEntry;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.torch.ModelVariantTiming;
import gluelab.torch.PythonChoice;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.torch.TorchException;
import gluelab.torch.TorchPython;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
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
 * The step limits of steps 03, 05 and 08 (07's are in ModelConfirmHangsTest), the compile seconds of step 01 and the plan
 * check's shape hint, in the real torch harness on the CPU: a model or a fix that loops is a failed row, tree or fix naming
 * the line it was stuck on, within a few seconds, the harness living on; one that kills the harness costs what it was
 * running, the rest running in a fresh one.
 */
@Tag("slow")
class ModelStepLimitsTest {
    /** A fwd+bwd step of these models takes milliseconds. */
    static final StepLimits SHORT = new StepLimits(2, 60, 2);
    static PythonChoice python;

    static final String MODEL = """
            import torch
            from torch import nn

            def act(x):
                return torch.tanh(x)

            class Net(nn.Module):
                def __init__(self, T):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)

                def forward(self, x):
                    return act(self.lin(x))

            def build(T):
                return Net(T)
            """;

    /** Rewrites of act: the same, one that loops under grad, one that loops from its 4th call on (in the timed steps), one that ends the process. */
    static final String REWRITES = """
            import os, time
            import torch

            def act_same(x):
                return torch.tanh(x)

            def act_loop(x):
                while torch.is_grad_enabled():
                    time.sleep(0.05)
                return torch.tanh(x)

            CALLS = [0]

            def act_late(x):
                CALLS[0] += 1
                while CALLS[0] > 3:
                    time.sleep(0.05)
                return torch.tanh(x)

            def act_exit(x):
                if torch.is_grad_enabled():
                    os._exit(9)
                return torch.tanh(x)
            """;

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        python = TorchPython.find();
        assumeTrue(python != null, () -> "no Python with torch for the torch tests: " + TorchPython.whyMissing());
    }

    static TorchBridge bridge() { return TorchBridge.start(python.python().toString(), "cpu"); }

    /** The 1-based line of {@code src} holding {@code text}. */
    static int line(String src, String text) {
        List<String> lines = src.lines().toList();
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains(text)) return i + 1;
        throw new AssertionError(text + " not in the source");
    }

    /** "(rw.py:N in FUNC)" for the loop's two lines, either of which SIGALRM may find it on. */
    static String loopPlace(String func, String loopLine) {
        int l = line(REWRITES, loopLine);
        return "(?s).*\\(rw\\.py:(" + l + "|" + (l + 1) + ") in " + func + "\\).*";
    }

    static ModelFix fix(Path rw, String name, String function) { return ModelFix.parse(name + "=swap:model.act=" + rw + ":" + function); }

    @Test void fixesThatLoopAreFailedRowsNamingTheirLinesAndTheOthersAreTimed(@TempDir Path dir) throws Exception {
        ModelEntry e = ModelEntry.parse(Files.writeString(dir.resolve("net.py"), MODEL) + ":build");
        Path rw = Files.writeString(dir.resolve("rw.py"), REWRITES);
        try (TorchBridge b = bridge()) {
            long t0 = System.nanoTime();
            ModelVariantTiming r = ModelVariantTiming.run(b, e, Map.of(16L, ModelHangsTest.x(16)),
                    List.of(fix(rw, "same", "act_same"), fix(rw, "loop", "act_loop"), fix(rw, "late", "act_late")), false, ModelHangsTest.QUICK, 0, SHORT, true,
                    Progress.NONE);
            assertTrue((System.nanoTime() - t0) / 1e9 < 60, "each hang stops within its limit");
            String all = r.rows().toString();
            ModelVariantTiming.Row loop = r.row("loop", 16, Replay.DIRECT).orElseThrow();
            assertTrue(loop.failed() && loop.error().startsWith("timed out: the model ran past the step limit (2 s) in building loop and its first fwd+bwd step"),
                    loop.error());
            assertTrue(loop.error().matches(loopPlace("act_loop", "while torch.is_grad_enabled()")), "names the rewrite's line: " + loop.error());
            ModelVariantTiming.Row late = r.row("late", 16, Replay.DIRECT).orElseThrow();
            assertTrue(late.failed() && late.error().startsWith("timed out: ") && late.error().contains("in the timed fwd+bwd steps of 3 subjects"), late.error());
            assertTrue(late.error().matches(loopPlace("act_late", "while CALLS[0] > 3")), late.error());
            for (String v : List.of(ModelVariantTiming.BASELINE, "same")) {
                ModelVariantTiming.Row row = r.row(v, 16, Replay.DIRECT).orElseThrow();
                assertFalse(row.failed(), "timed again without the one that hung: " + all);
                assertTrue(row.run().samples().length >= 3, all);
            }
            assertEquals(0, r.row(ModelVariantTiming.BASELINE, 16, Replay.DIRECT).orElseThrow().compile().seconds(),
                    "the model as written compiles nothing (its first step's wall is no compile time)");
            assertTrue(b.alive(), "the harness lives on");
            assertEquals(b.pid(), r.pid());
        }
    }

    @Test void aFixThatEndsTheHarnessIsAFailedRowAndTheOthersAreTimedInAFreshOne(@TempDir Path dir) throws Exception {
        ModelEntry e = ModelEntry.parse(Files.writeString(dir.resolve("net.py"), MODEL) + ":build");
        Path rw = Files.writeString(dir.resolve("rw.py"), REWRITES);
        try (TorchBridge b = bridge()) {
            ModelVariantTiming r = ModelVariantTiming.run(b, e, Map.of(16L, ModelHangsTest.x(16)), List.of(fix(rw, "dies", "act_exit"), fix(rw, "same", "act_same")),
                    false, ModelHangsTest.QUICK, 0, SHORT, true, Progress.NONE);
            ModelVariantTiming.Row dies = r.row("dies", 16, Replay.DIRECT).orElseThrow();
            assertTrue(dies.failed() && dies.error().contains("Python process exited with code 9 during compiling dies @ 16 tokens"), dies.error());
            assertFalse(r.row("same", 16, Replay.DIRECT).orElseThrow().failed(), r.rows().toString());
            assertFalse(r.row(ModelVariantTiming.BASELINE, 16, Replay.DIRECT).orElseThrow().failed(), r.rows().toString());
            assertFalse(b.alive());
            assertNotEquals(b.pid(), r.pid(), "timed in a fresh harness");
        }
    }

    @Test void aCheckOfFixesThatLoopOrEndTheHarnessKeepsEveryOtherVerdict(@TempDir Path dir) throws Exception {
        ModelEntry e = ModelEntry.parse(Files.writeString(dir.resolve("net.py"), MODEL) + ":build");
        Path rw = Files.writeString(dir.resolve("rw.py"), REWRITES);
        try (TorchBridge b = bridge()) {
            long t0 = System.nanoTime();
            ModelCorrectness c = ModelCorrectness.run(b, e, ModelHangsTest.x(16), 16,
                    List.of(fix(rw, "loop", "act_loop"), fix(rw, "dies", "act_exit"), fix(rw, "same", "act_same")), List.of(DType.FP32), "", SHORT, Progress.NONE);
            assertTrue((System.nanoTime() - t0) / 1e9 < 60);
            assertEquals(1, c.dtypes().size(), c.toString());
            ModelCorrectness.AtDtype fp32 = c.dtypes().getFirst();
            assertTrue(fp32.error().isEmpty() && !fp32.tensors().isEmpty() && fp32.tensors().getFirst().eagerVsFp64() != null, fp32.toString());
            assertEquals(List.of("loop", "dies", "same"), fp32.fixes().stream().map(ModelCorrectness.FixRun::fix).toList());
            String loop = fp32.fixes().get(0).error();
            assertTrue(loop.startsWith("timed out: the model ran past the step limit (2 s) in building loop in fp32 and its first fwd+bwd step"), loop);
            assertTrue(loop.matches(loopPlace("act_loop", "while torch.is_grad_enabled()")), loop);
            String dies = fp32.fixes().get(1).error();
            assertTrue(dies.contains("Python process exited with code 9 during dies fp32"), dies);
            ModelCorrectness.FixRun same = fp32.fixes().get(2);
            assertTrue(same.error().isEmpty() && !same.tensors().isEmpty(), "checked in a fresh harness: " + same);
            assertTrue(same.tensors().stream().allMatch(t -> t.vsEager() != null && t.vsEager().relL2() == 0), same.toString());
            assertFalse(b.alive());
        }
    }

    @Test void aProfileWhoseEveryTreeHangsNamesTheLineAndTheStepIsFailed(@TempDir Path dir) throws Exception {
        ModelEntry e = ModelHangsTest.model(dir, "gradloop.py", "        while torch.is_grad_enabled():\n            time.sleep(0.05)");
        ExperimentFolder ex = ExperimentFolder.open("gradloop", dir);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.05, "cpu", new ModelSubject(e.file().toString(), "build", "x:T,8:fp32", "", List.of())));
        try (TorchBridge b = bridge(); gluelab.device.Device cpu = gluelab.device.Devices.open("cpu")) {
            long t0 = System.nanoTime();
            ModelProfile p = ModelProfileStep.run(ex, cpu, b, Presets.LLAMA_3_8B, 0, SHORT, Progress.NONE).profile();
            assertTrue((System.nanoTime() - t0) / 1e9 < 60, "each tree stops within its limits");
            assertEquals(List.of(ModelTree.EAGER, ModelTree.PER_BLOCK, ModelTree.WHOLE), p.trees().stream().map(ModelProfile.TreeProfile::tree).toList());
            for (ModelTree t : List.of(ModelTree.EAGER, ModelTree.WHOLE)) {
                String err = p.tree(t).orElseThrow().error();
                assertTrue(err.startsWith("timed out: the model ran past the step limit (2 s) in building the model and its first fwd+bwd step"), t + ": " + err);
                assertTrue(err.matches("(?s).*\\(gradloop\\.py:1[23] in forward\\).*"), t + ": " + err);
            }
            assertTrue(p.tree(ModelTree.PER_BLOCK).orElseThrow().error().startsWith("no repeated blocks found"));
            assertTrue(p.nothingProfiled());
            assertTrue(ex.output(Step.PROFILE_DIFF).orElseThrow().failed(), "the status says failed: " + ex.status().printAll());
            assertTrue(Files.readString(ex.file(Step.PROFILE_DIFF, ModelProfileStep.SUMMARY)).contains("FAILED: timed out"));
            assertTrue(b.alive());
        }
    }

    /** Step 01's compile_s is torch.compile's own compile time: 8 s the first step spends in the model's code (as if stuck) is not in it. */
    @Test void compileSecondsLeaveOutTimeTheFirstStepSpentInTheModel(@TempDir Path dir) throws Exception {
        Path mark = dir.resolve("stall-once");
        ModelEntry e = ModelEntry.parse(Files.writeString(dir.resolve("stall.py"), """
                import os, time
                import torch
                from torch import nn

                MARK = %s

                @torch.compiler.disable
                def stall(x):
                    if os.path.exists(MARK):
                        os.remove(MARK)
                        time.sleep(8)
                    return x

                class Net(nn.Module):
                    def __init__(self, T):
                        super().__init__()
                        self.lin = nn.Linear(8, 8)

                    def forward(self, x):
                        return self.lin(stall(x)).relu()

                def build(T):
                    return Net(T)
                """.formatted("r'" + mark + "'")) + ":build");
        StepLimits roomy = new StepLimits(30, 1200, 10);
        try (TorchBridge b = bridge()) {
            // the first run compiles (cold, or from the shared Inductor cache); the second loads its graphs from the cache
            ModelBaselines.Row cold = ModelBaselines.run(b, e, Map.of(16L, ModelHangsTest.x(16)), List.of(ModelTree.WHOLE), List.of(), "", ModelHangsTest.QUICK, 0,
                    roomy, Progress.NONE).rows().getFirst();
            assertFalse(cold.failed(), cold.error());
            assertTrue(cold.compile().seconds() > 0 && cold.compile().graphs() >= 1, cold.compile().toString());
            Files.writeString(mark, "");
            ModelBaselines.Row stalled = ModelBaselines.run(b, e, Map.of(16L, ModelHangsTest.x(16)), List.of(ModelTree.WHOLE), List.of(), "", ModelHangsTest.QUICK,
                    0, roomy, Progress.NONE).rows().getFirst();
            assertFalse(stalled.failed(), stalled.error());
            assertFalse(Files.exists(mark), "the first step ran the 8 s stall");
            assertTrue(stalled.compile().seconds() > 0 && stalled.compile().seconds() < 7,
                    "the compile's own seconds, not the first step's wall (8 s of it in the model): " + stalled.compile().seconds());
        }
    }

    @Test void aShapeTheModelRefusesIsNamedWithWhatEachSymbolResolvedTo(@TempDir Path dir) {
        ExperimentFolder ex = ExperimentFolder.open("shapes", dir);
        try (TorchBridge b = bridge()) {
            var err = assertThrows(TorchException.class, () -> ModelPlan.write(ex, b, Presets.LLAMA_3_8B, new ModelSubject(
                    ModelPlanTest.EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,D:fp32", "", List.of()), List.of(16L), 0.05, "cpu"));
            assertTrue(err.getMessage().contains("forward on input 'x' (16,4096 fp32) failed: RuntimeError: "), err.getMessage());
            assertTrue(err.getMessage().endsWith("; --inputs resolved: x: (T, D) = (16, 4096) with T=16 (the token count), "
                    + "D=4096 (the hidden size of --model llama-3-8b)"), err.getMessage());
            assertFalse(ex.hasPlan());
        }
    }
}
