package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelCheck;
import gluelab.torch.ModelEntry;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.torch.TorchException;
import gluelab.torch.TorchPython;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Models that hang, exit or kill their process, in the real torch harness: a hang is a FAILED row (or a failed
 * check) naming the line it was stuck on, within the step limit; a process that dies keeps the rows before it and
 * names the exit code and the tree it died in; sys.exit is an exception with its place; a huge input is named.
 */
@Tag("slow")
class ModelHangsTest {
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 0.3, 20), 1);
    /** Tiny limits: a step of these models takes milliseconds; the whole tree's compile a few seconds. */
    static final StepLimits TINY = new StepLimits(1, 60, 2);
    static PythonChoice python;
    static Device cpu;

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        python = TorchPython.find();
        assumeTrue(python != null, () -> "no Python with torch for the torch tests: " + TorchPython.whyMissing());
        cpu = Devices.open("cpu");
    }

    @AfterAll static void stop() {
        if (cpu != null) cpu.close();
    }

    static TorchBridge bridge() { return TorchBridge.start(python.python().toString(), "cpu"); }

    /** A one-layer model whose forward runs {@code body} first (indented 8, with torch, os, sys, signal, time imported). */
    static ModelEntry model(Path dir, String name, String body) throws Exception {
        String src = "import os, signal, sys, time\nimport torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def __init__(self, T):\n"
                + "        super().__init__()\n        self.T = T\n        self.lin = nn.Linear(8, 8)\n\n    def forward(self, x):\n"
                + body + "\n        return self.lin(x)\n\ndef build(T):\n    return Net(T)\n";
        return ModelEntry.parse(Files.writeString(dir.resolve(name), src) + ":build");
    }

    static List<TensorSpec> x(long tokens) { return List.of(TensorSpec.of("x", DType.FP32, tokens, 8)); }

    @Test void aForwardThatLoopsUnderGradIsATimedOutRowNamingItsLineAndTheNextTreeRuns(@TempDir Path dir) throws Exception {
        // line 13: the sleep of the loop
        ModelEntry e = model(dir, "lateloop.py", "        while torch.is_grad_enabled():\n            time.sleep(0.1)");
        try (TorchBridge b = bridge()) {
            long t0 = System.nanoTime();
            ModelBaselines r = ModelBaselines.run(b, e, Map.of(16L, x(16)), List.of(ModelTree.EAGER, ModelTree.WHOLE), List.of(), "", QUICK, 0, TINY,
                    Progress.NONE);
            assertTrue((System.nanoTime() - t0) / 1e9 < 40, "each tree stops within its limits");
            assertEquals(2, r.rows().size(), ModelBaselinesStep.text(r));
            for (ModelBaselines.Row row : r.rows()) {
                assertTrue(row.failed(), ModelBaselinesStep.text(r));
                assertTrue(row.error().startsWith("timed out: the model ran "), row.error());
                assertTrue(row.error().contains("(lateloop.py:13 in forward)"), "names where it was stuck: " + row.error());
            }
            assertTrue(ModelBaselinesStep.text(r).contains("FAILED: timed out"), ModelBaselinesStep.text(r));
            assertTrue(b.alive(), "the harness lives on");
            ModelCheck c = ModelCheck.run(b, e, x(16), 16, "", TINY);
            assertEquals("Net", c.moduleType(), "the next request runs in the same process");
        }
    }

    @Test void aProcessThatDiesKeepsTheRowsBeforeItNamesItsExitAndTheTreesAfterRunInAFreshOne(@TempDir Path dir) throws Exception {
        ModelEntry e = model(dir, "latefail.py", "        if torch.is_grad_enabled() and self.T == 32:\n            os._exit(9)");
        ExperimentFolder ex = ExperimentFolder.open("latefail", dir);
        try (TorchBridge b = bridge()) {
            ModelPlan.write(ex, b, Presets.LLAMA_3_8B, new ModelSubject(e.file().toString(), "build", "x:T,8:fp32", "", List.of()), List.of(16L, 32L),
                    0.05, "cpu");
            ModelBaselines r = ModelBaselinesStep.run(ex, cpu, b, Presets.LLAMA_3_8B, QUICK, 0, Progress.NONE);
            assertEquals(List.of("eager@16", "per-block@16", "whole@16", "eager@32", "per-block@32", "whole@32"),
                    r.rows().stream().map(x -> x.tree().id() + "@" + x.tokens()).toList(), ModelBaselinesStep.text(r));
            assertFalse(r.row(ModelTree.EAGER, 16).orElseThrow().failed(), "measured before the death: " + ModelBaselinesStep.text(r));
            String died = r.row(ModelTree.EAGER, 32).orElseThrow().error();
            assertTrue(died.contains("Python process exited with code 9 during eager @ 32 tokens"), died);
            assertTrue(r.row(ModelTree.PER_BLOCK, 32).orElseThrow().error().startsWith("no repeated blocks found"),
                    "the tree after it ran in a fresh process: " + ModelBaselinesStep.text(r));
            assertTrue(r.row(ModelTree.WHOLE, 32).orElseThrow().error().contains("exited with code 9 during whole @ 32 tokens"), ModelBaselinesStep.text(r));
            assertFalse(b.alive());
            assertTrue(ex.has(Step.BASELINES), "the step's record is written");
            assertEquals(6, ModelBaselinesStep.load(ex).rows().size());
        }
    }

    @Test void sysExitInTheModelIsAnExceptionWithItsPlaceAndTheHarnessLivesOn(@TempDir Path dir) throws Exception {
        ModelEntry e = model(dir, "sysexit.py", "        sys.exit(3)");
        try (TorchBridge b = bridge()) {
            var f = assertThrows(TorchException.class, () -> ModelCheck.run(b, e, x(16), 16, ""));
            assertEquals(TorchException.Kind.FAILED, f.kind(), f.getMessage());
            assertTrue(f.getMessage().contains("SystemExit: 3 (sysexit.py:12 in forward)"), f.getMessage());
            assertTrue(f.getMessage().contains("sysexit.py:build"), f.getMessage());
            ModelBaselines r = ModelBaselines.run(b, e, Map.of(16L, x(16)), List.of(ModelTree.EAGER), List.of(), "", QUICK, 0, TINY, Progress.NONE);
            assertTrue(r.rows().getFirst().error().contains("SystemExit: 3 (sysexit.py:12 in forward)"), ModelBaselinesStep.text(r));
            assertTrue(b.alive());
        }
    }

    @Test void aCheckThatLoopsOrExitsNamesTheEntryPointAndWhatItWasDoing(@TempDir Path dir) throws Exception {
        ModelEntry loop = model(dir, "loop.py", "        while True:\n            pass");
        ModelEntry exits = model(dir, "osexit.py", "        os._exit(7)");
        try (TorchBridge b = bridge()) {
            var hung = assertThrows(TorchException.class, () -> ModelCheck.run(b, loop, x(16), 16, "", StepLimits.check(1)));
            assertTrue(hung.getMessage().contains("loop.py:build: timed out: the model ran past the step limit (1 s) in forward without grad on 'x' (16,8 fp32)"),
                    hung.getMessage());
            assertTrue(hung.getMessage().matches("(?s).*\\(loop.py:1[23] in forward\\).*"), hung.getMessage());
            var died = assertThrows(TorchException.class, () -> ModelCheck.run(b, exits, x(16), 16, ""));
            assertEquals(TorchException.Kind.CRASHED, died.kind());
            assertTrue(died.getMessage().startsWith("model check of osexit.py:build: the torch harness's Python process exited with code 7 during forward "
                    + "without grad on 'x' (16,8 fp32)"), died.getMessage());
        }
    }

    @Test void aHangInCodeTheStepLimitCannotReachIsEndedByTheSilenceLimit(@TempDir Path dir) throws Exception {
        // SIGALRM blocked: as C code that never returns to Python
        ModelEntry stuck = model(dir, "stuck.py", "        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\n        time.sleep(600)");
        try (TorchBridge b = bridge()) {
            long t0 = System.nanoTime();
            var e = assertThrows(TorchException.class, () -> ModelCheck.run(b, stuck, x(16), 16, "", new StepLimits(1, 0, 1)));
            assertTrue((System.nanoTime() - t0) / 1e9 < 25, "ended after its silence limit");
            assertEquals(TorchException.Kind.CRASHED, e.kind());
            assertTrue(e.getMessage().contains("was ended by gluelab after writing nothing for 13 s"), e.getMessage());
            assertTrue(e.getMessage().contains("stuck.py:build") && e.getMessage().contains("during forward without grad"), e.getMessage());
        }
    }

    @Test void anInputTooLargeToMakeIsNamedWithItsShapeAndBytes() {
        try (TorchBridge b = bridge()) {
            var e = assertThrows(TorchException.class, () -> ModelCheck.run(b, ModelEntry.parse(ModelPlanTest.EXAMPLES.resolve("llama3.py") + ":build"),
                    List.of(TensorSpec.of("x", DType.FP32, 99999999999L, 64)), 16, ""));
            assertTrue(e.getMessage().contains("input 'x' (99999999999,64 fp32, 25,599,999,999,744 bytes) cannot be made on cpu"), e.getMessage());
            assertTrue(b.alive());
        }
    }
}
