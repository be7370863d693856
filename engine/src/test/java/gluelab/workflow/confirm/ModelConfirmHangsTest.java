package gluelab.workflow.confirm;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.ops.Replay;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;
import gluelab.torch.PythonChoice;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchPython;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 07 on models that hang, in fresh Python processes of the real torch harness on the CPU: a process stuck where the
 * step limit cannot reach (SIGALRM blocked, as in C code) is ended after its silence limit and FAILED with no numbers; in
 * the process after it, a fix that loops is a failed row naming its line, and the model as written and the other fix are timed.
 */
@Tag("slow")
class ModelConfirmHangsTest {
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 0.3, 20), 1);

    @Test void aProcessStuckInCIsEndedAndFailedAndALoopingFixIsAFailedRow(@TempDir Path dir) throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.find();
        assumeTrue(python != null, TorchPython::whyMissing);
        Path mark = dir.resolve("stuck-once");
        Path model = Files.writeString(dir.resolve("net.py"), """
                import os, signal, time
                import torch
                from torch import nn

                MARK = %s

                def act(x):
                    return torch.tanh(x)

                class Net(nn.Module):
                    def __init__(self, T):
                        super().__init__()
                        self.lin = nn.Linear(8, 8)

                    def forward(self, x):
                        if torch.is_grad_enabled() and not os.path.exists(MARK):  # the first process only
                            open(MARK, "w").close()
                            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
                            time.sleep(600)
                        return act(self.lin(x))

                def build(T):
                    return Net(T)
                """.formatted("r'" + mark + "'"));
        Path rw = Files.writeString(dir.resolve("rw.py"), """
                import time
                import torch

                def act_same(x):
                    return torch.tanh(x)

                def act_loop(x):
                    while torch.is_grad_enabled():
                        time.sleep(0.05)
                    return torch.tanh(x)
                """);
        ExperimentFolder ex = ExperimentFolder.open("stuck", dir);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.05, "cpu", new ModelSubject(model.toString(), "build", "x:T,8:fp32", "", List.of())));
        List<ModelFix> fixes = List.of(ModelFix.parse("same=swap:model.act=" + rw + ":act_same"), ModelFix.parse("loop=swap:model.act=" + rw + ":act_loop"));
        StepLimits limits = new StepLimits(1, 0, 1);
        try (Device cpu = Devices.open("cpu")) {
            long t0 = System.nanoTime();
            ModelConfirmResult r = new ModelConfirmation(cpu, python).processes(2).limits(limits).run(ex, Presets.LLAMA_3_8B, fixes, QUICK);
            double wall = (System.nanoTime() - t0) / 1e9;
            assertTrue(wall < 90, "bounded by the silence limit: " + wall + " s");
            assertEquals(2, r.processes().size(), r.text());

            var stuck = r.processes().get(0);
            assertFalse(stuck.ok(), r.text());
            assertNull(stuck.timing(), "a process ended for its silence has no numbers");
            long silence = limits.silence(limits.measuring(QUICK, 3)).toSeconds();
            assertTrue(stuck.reason().contains("was ended by gluelab after writing nothing for " + silence + " s"), stuck.reason());
            assertTrue(stuck.reason().contains("during compiling baseline @ 16 tokens"), stuck.reason());

            var next = r.processes().get(1);
            assertTrue(next.ok(), r.text());
            ModelVariantTiming.Row loop = next.timing().row("loop", 16, Replay.DIRECT).orElseThrow();
            assertTrue(loop.failed() && loop.error().startsWith("timed out: the model ran past the step limit (1 s) in building loop"), loop.error());
            assertTrue(loop.error().matches("(?s).*\\(rw\\.py:(8|9) in act_loop\\).*"), loop.error());
            for (String v : List.of(ModelVariantTiming.BASELINE, "same"))
                assertFalse(next.timing().row(v, 16, Replay.DIRECT).orElseThrow().failed(), next.timing().rows().toString());

            var same = r.row("same", 16, Replay.DIRECT).orElseThrow();
            assertTrue(same.measured() && same.caveat().contains("unconfirmed: 1 of 3"), r.text());
            assertTrue(r.row("loop", 16, Replay.DIRECT).orElseThrow().caveat().contains("the fix failed in a process: timed out"), r.text());
            assertTrue(r.flags().stream().anyMatch(f -> f.startsWith("process 1 (pid " + stuck.pid() + ") FAILED")), r.flags().toString());
        }
    }
}
