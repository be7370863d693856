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
 * `--step-limit` of steps 03, 06 and 08 on a model whose blocks loop whenever grad is on (it passes the plan's no-grad
 * check): each command stops within the limit naming the line, keeps its record and exits 1; a bad limit is refused first.
 */
@Tag("slow")
class ModelStepLimitCliTest {
    static final String BLOCKS_LOOP = """
            import time
            import torch
            from torch import nn


            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)

                def forward(self, x):
                    while torch.is_grad_enabled():
                        time.sleep(0.05)
                    return self.lin(x)


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleList([Block(), Block()])

                def forward(self, x):
                    for layer in self.layers:
                        x = layer(x)
                    return x


            def build(T):
                return Net()
            """;
    static final String PLACE = "(?s).*\\(blocks\\.py:1[23] in forward\\).*";

    @Test void stepsThatTimeNothingStopALoopingModelAtTheirStepLimit(@TempDir Path root) throws Exception {
        Path model = Files.writeString(root.resolve("blocks.py"), BLOCKS_LOOP);
        ExperimentFolder ex = ExperimentFolder.open("loops", root);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", new ModelSubject(model.toString(), "build", "x:T,8:fp32", "", List.of())));
        String r = root.toString();

        var bad = run("model", "profile", "loops", "--experiments-root", r, "--step-limit", "-1");
        assertNotEquals(0, bad.code());
        assertTrue(bad.err().contains("--step-limit must be 0 (no limit) or more seconds, got -1.0"), bad.err());
        assertFalse(ex.has(Step.PROFILE_DIFF), "refused before anything ran");

        long t0 = System.nanoTime();
        var profile = run("model", "profile", "loops", "--experiments-root", r, "--step-limit", "1");
        assertEquals(1, profile.code(), profile.toString());
        assertTrue(profile.out().contains("FAILED: timed out: the model ran past the step limit (1 s) in building the model and its first fwd+bwd step"),
                profile.out());
        assertTrue(profile.out().matches(PLACE), profile.out());
        assertTrue(profile.err().contains("nothing was profiled: every row of step 03-profile-diff failed"), profile.err());

        var graphs = run("model", "graphs", "loops", "--experiments-root", r, "--step-limit", "1");
        assertEquals(1, graphs.code(), graphs.toString());
        String stopped = Files.readString(ex.file(Step.GRAPH_BUDGET, "graph-budget"));
        assertTrue(stopped.contains("The per-block tree stopped: timed out: the model ran past the step limit (1 s) in the grad @ 16 tokens pass"), stopped);
        assertTrue(stopped.matches(PLACE), stopped);

        var check = run("model", "check", "loops", "--experiments-root", r, "--step-limit", "1", "--dtypes", "fp32", "--fix", "b=regions:model.Block.forward");
        assertEquals(1, check.code(), check.toString());
        assertTrue(check.out().contains("timed out: the model ran past the step limit (1 s) in the model as written's first fwd+bwd step in fp32"), check.out());
        assertTrue((System.nanoTime() - t0) / 1e9 < 120, "bounded by the limits");

        String status = ex.status().printAll();
        for (Step s : List.of(Step.PROFILE_DIFF, Step.CORRECTNESS))
            assertTrue(status.lines().anyMatch(l -> l.contains(s.notebook()) && l.contains("failed") && !l.contains("done")), s + ": " + status);
    }
}
