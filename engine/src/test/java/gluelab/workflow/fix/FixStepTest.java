package gluelab.workflow.fix;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.expr.Glue;
import gluelab.expr.workbench.Examples;
import gluelab.expr.workbench.Rewrites;
import gluelab.model.Presets;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.TorchSide;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class FixStepTest {
    static final TimingConfig FAST = new TimingConfig(Mode.COLD, 0, new StopRule(3, 0, 0.5, 0.2, 20), 2);

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void fixesCheapestFirstThenTogetherThenSizing(@TempDir Path root) {
        try (Device cpu = Devices.open("cpu")) {
            ExperimentFolder ex = ExperimentFolder.open("fix", root);
            FixResult r = FixStep.on(cpu, Calibration.given("test", 50e9, 1e11), Presets.LLAMA_3_8B).timing(FAST)
                    .candidate("rmsnorm", "fwd", 8, "eager")
                    .candidate("swiglu", "bwd", 8, "eager")
                    .region("rmsnorm", "rmsnorm region", g -> Examples.rmsnorm(g, "bf16"))
                    .rewrite("qnorm_rope_complex", g -> Rewrites.complexToRealRope(g, "bf16"))
                    .kernel("rmsnorm", "fwd", "my rmsnorm", d -> { throw new AssertionError("a CUDA kernel must not be prepared on the CPU"); })
                    .torch(() -> TorchSide.start("/nonexistent/python3", cpu), "default")
                    .sizing(Examples.qnorm(small(), "bf16"), Examples.ropeCat(small(), "bf16"))
                    .record(ex);

            assertEquals(2, r.candidates().size());
            var rms = r.attempts().stream().filter(a -> a.op().equals("rmsnorm")).toList();
            assertEquals(FixSource.CATALOGUE_VARIANT, rms.getFirst().source(), "cheapest first");
            assertEquals("fused", rms.getFirst().name());
            assertTrue(rms.stream().anyMatch(a -> a.source() == FixSource.REGION && a.measured()), r.table().print());
            var kernel = rms.stream().filter(a -> a.source() == FixSource.CUDA_KERNEL).findFirst().orElseThrow();
            assertEquals(Attempt.Status.SKIPPED, kernel.status());
            assertTrue(kernel.reason().contains("GPU"), kernel.reason());
            var torch = rms.stream().filter(a -> a.source() == FixSource.TORCH).toList();
            assertEquals(2, torch.size());
            assertTrue(torch.stream().allMatch(a -> a.status() == Attempt.Status.SKIPPED && a.reason().startsWith("torch unavailable")), torch.toString());

            // Two candidates with a fix each: baseline, each alone, both together.
            assertEquals(4, r.interactions().size(), r.interactionTable().print());
            assertEquals(0.0, r.interactions().getFirst().deltaUs());
            assertEquals(2, r.interactions().getLast().fixes().size());
            assertTrue(r.notes().getFirst().startsWith("together"), r.notes().toString());
            assertEquals(6, r.sizing().size(), "region(A)+eager B, region(A)+region(B), region(C), fwd and bwd");

            assertEquals(r, FixResult.load(ex.file(Step.FIX, "fix")));
            assertNotNull(r.benchRecord());
            assertEquals(r.benchRecord(), ex.record(Step.FIX).id());
            assertTrue(ex.devlog().read().stream().anyMatch(e -> e.text().startsWith("fix rmsnorm fwd T=8 %%cuda kernel")), "skips are logged");
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void rewritesAreOnlyTriedForTheirOp() {
        try (Device cpu = Devices.open("cpu")) {
            FixResult r = FixStep.on(cpu, Calibration.given("test", 50e9, 1e11), Presets.LLAMA_3_8B).timing(FAST)
                    .candidate("qnorm_rope_complex", "fwd", 8, "eager")
                    .rewrite("qnorm_rope_complex", g -> Rewrites.complexToRealRope(g, "bf16"))
                    .run();
            var rw = r.attempts().stream().filter(a -> a.source() == FixSource.REWRITE).findFirst().orElseThrow();
            assertTrue(rw.measured(), rw.describe());
            assertEquals(1, r.notes().size(), "one candidate: nothing to combine");
        }
    }

    /** torch's compile logs ride along from step 05 to step 06 (the facade adds them to the budget). */
    @Test
    void torchGraphBudgetsSurviveTheFile(@TempDir Path dir) throws Exception {
        var log = gluelab.compilelog.GraphBudget.of(gluelab.compilelog.CompileLogParser.read(
                Path.of(getClass().getResource("/compilelog/llama_block.log").toURI())));
        FixResult r = new FixResult(FixResult.FORMAT, java.util.List.of("rmsnorm fwd T=8"), java.util.List.of(), java.util.List.of(),
                java.util.List.of(), java.util.List.of(), null, java.util.List.of(log), "cpu-test");
        r.save(dir.resolve("fix.json"));
        FixResult back = FixResult.load(dir.resolve("fix.json"));
        assertEquals(r, back);
        var budget = gluelab.workflow.graphbudget.RegionBudget.of(Presets.LLAMA_3_8B).dynamoLogs(back.torchBudgets()).count();
        assertEquals(log.entries().size(), budget.regions().size());
    }

    @Test
    void theFixAndInteractionTablesCarryTheNoisyColumn(@TempDir Path dir) {
        double[] three = {1e-4, 1e-4, 1e-4};
        // Stopped on the timeout with 3 samples under the standard rule: noisy; a measurement with no rule is not called noisy.
        var noisy = new gluelab.timing.Measurement("x", Mode.COLD, three, gluelab.timing.Summary.of(three), StopRule.Reason.TIMEOUT, 1, 0, 0, 0, 0,
                StopRule.standard());
        var sound = new gluelab.timing.Measurement("y", Mode.COLD, three, gluelab.timing.Summary.of(three), StopRule.Reason.CONVERGED, 1, 0, 0, 0, 0, null);
        String why = noisy.noisy().orElseThrow();
        Attempt fixedNoisy = Attempt.measured("rmsnorm", "fwd", 8, FixSource.CATALOGUE_VARIANT, "fused", 100, 80, 50, "", sound.noisy(), noisy.noisy());
        Attempt bothSound = Attempt.measured("rmsnorm", "fwd", 8, FixSource.REGION, "region", 100, 90, 50, "", sound.noisy(), sound.noisy());
        assertEquals("fixed: " + why, fixedNoisy.noisy());
        assertEquals("baseline: " + why + "; fixed: " + why, Attempt.noisy(noisy.noisy(), noisy.noisy()));
        var ms = java.util.List.of(noisy, sound, sound);
        var rows = java.util.List.of(new InteractionRow("baseline (no fix)", java.util.List.of(), 100, 0, Interactions.noisy(ms, 0)),
                new InteractionRow("alone: fused", java.util.List.of("fused"), 80, -20, Interactions.noisy(ms, 1)));
        assertEquals(why, rows.get(0).noisy());
        assertEquals("baseline: " + why, rows.get(1).noisy(), "a delta against a noisy baseline is as noisy");
        FixResult r = new FixResult(FixResult.FORMAT, java.util.List.of("rmsnorm fwd T=8"), java.util.List.of(fixedNoisy, bothSound), rows,
                java.util.List.of(), java.util.List.of(), null, java.util.List.of(), "cpu-test");
        var table = r.table();
        assertEquals(java.util.List.of("fixed: " + why, ""), table.stringColumn("noisy").asList(), table.print());
        var interactions = r.interactionTable();
        assertEquals(java.util.List.of(why, "baseline: " + why), interactions.stringColumn("noisy").asList(), interactions.print());
        // Sound rows only: the column is left out, as in the other step tables.
        FixResult quiet = new FixResult(FixResult.FORMAT, java.util.List.of("rmsnorm fwd T=8"), java.util.List.of(bothSound), java.util.List.of(),
                java.util.List.of(), java.util.List.of(), null, java.util.List.of(), "cpu-test");
        assertFalse(quiet.table().columnNames().contains("noisy"), quiet.table().print());
        // The caveats survive the file.
        r.save(dir.resolve("fix.json"));
        assertEquals(r, FixResult.load(dir.resolve("fix.json")));
    }

    @Test
    void aRankingBelowItsStopRuleSaysSo() {
        try (Device cpu = Devices.open("cpu")) {
            var step = FixStep.on(cpu, Calibration.given("test", 50e9, 1e11), Presets.LLAMA_3_8B).candidates(gluelab.rank.Ranking.of(java.util.List.of(), 0.01));
            var e = assertThrows(IllegalStateException.class, step::run);
            assertTrue(e.getMessage().contains("stop rule is reached"), e.getMessage());
        }
    }

    static Glue small() { return Glue.dims("T", 4, "H", 2, "HD", 8, "R", 4, "R2", 2, "NOPE", 4); }
}
