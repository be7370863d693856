package gluelab.cli;

import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static gluelab.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A model whose forward raises only with grad on passes the plan's no-grad check, then fails every row of steps 01, 05 and 08:
 * each record is kept, the command exits 1 saying nothing was measured, and the status shows the step failed, not done.
 */
@Tag("slow")
class ModelNothingMeasuredCliTest {
    static final String LATE_RAISE = """
            import torch
            from torch import nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)

                def forward(self, x):
                    if torch.is_grad_enabled():
                        raise RuntimeError("fails only with grad on")
                    return self.lin(x)


            def build(T):
                return Net()
            """;

    @Test void aStepWhoseEveryRowFailedExitsOneAndIsMarkedFailed(@TempDir Path root) throws Exception {
        Path model = root.resolve("late.py");
        Files.writeString(model, LATE_RAISE);
        ExperimentFolder ex = ExperimentFolder.open("late", root);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", new ModelSubject(model.toString(), "build", "x:T,8:fp32", "", List.of())));
        String r = root.toString();
        var baselines = run("model", "baselines", "late", "--experiments-root", r, "--timeout", "1");
        assertEquals(1, baselines.code(), baselines.toString());
        assertTrue(baselines.out().contains("fails only with grad on"), "the rows are printed: " + baselines);
        assertTrue(baselines.err().contains("nothing was measured: every row of step 01-baselines failed"), baselines.err());
        assertTrue(Files.isRegularFile(ex.file(Step.BASELINES, "model-baselines")), "the record is kept");

        var fix = run("model", "fix", "late", "--experiments-root", r, "--timeout", "1", "--fix", "net=regions:model.Net.forward");
        assertEquals(1, fix.code(), fix.toString());
        assertTrue(fix.err().contains("nothing was measured: every row of step 05-fix failed"), fix.err());

        var check = run("model", "check", "late", "--experiments-root", r, "--dtypes", "fp32", "--fix", "net=regions:model.Net.forward");
        assertEquals(1, check.code(), check.toString());
        assertTrue(check.err().contains("nothing was checked: every row of step 08-correctness failed"), check.err());

        String status = ex.status().printAll();
        for (Step s : List.of(Step.BASELINES, Step.FIX, Step.CORRECTNESS))
            assertTrue(status.lines().anyMatch(l -> l.contains(s.notebook()) && l.contains("failed") && !l.contains("done")), s + ": " + status);
    }
}
