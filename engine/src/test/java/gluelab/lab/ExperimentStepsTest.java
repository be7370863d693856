package gluelab.lab;

import gluelab.workflow.confirm.Comparison;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.expr.workbench.Examples;
import gluelab.workflow.experiment.Step;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.units.Bandwidth;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Steps 00, 01 and 04 through the facade on one experiment folder, each reading what the one before left. */
@Tag("slow") // measures baselines and a screen on the CPU
class ExperimentStepsTest {
    static final TimingConfig FAST = new TimingConfig(Mode.COLD, 0, new StopRule(3, 0, 0.5, 0.2, 20), 2);

    @Test
    void planBaselinesAndRankingLandInOneExperiment(@TempDir Path root) throws Exception {
        try (Gluelab lab = Gluelab.open("cpu").assumeBandwidth(Bandwidth.gbPerSecond(50), 1e11)) {
            ExperimentFolder ex = lab.experiment("story", root);
            assertThrows(IllegalStateException.class, () -> lab.rank(ex), "no baselines yet");
            assertThrows(IllegalArgumentException.class, () -> lab.plan(ex, "no-such-model", 0.01, 8));
            assertFalse(ex.hasPlan());
            lab.plan(ex, "llama-3-8b", 0.01, 8, 16);

            var base = lab.bench("rmsnorm", "swiglu").forPlan(ExperimentFolder.open("story", root).plan())
                    .passes("fwd").timing(FAST).check(0).record(ex, Step.BASELINES);
            assertEquals(List.of(base.record().id()), ex.require(Step.BASELINES).records());

            var ranking = lab.rank(ex);
            assertEquals(ranking.ranked().size(), ex.ranking().ranked().size());
            Path summary = ex.file(Step.RANK, "summary");
            assertEquals(ex.stepDir(Step.RANK).resolve("ranking.md"), summary);
            assertTrue(java.nio.file.Files.exists(ex.chartsDir().resolve("04-ranked.png")), "charts beside the other steps' charts");
            assertFalse(java.nio.file.Files.exists(ex.chartsDir().resolve("charts")), "no charts folder inside charts/");
            assertTrue(java.nio.file.Files.readString(summary).contains("../../charts/04-ranked.png"), "linked relative to the summary");
            assertTrue(ex.devlog().read().stream().anyMatch(e -> e.text().startsWith("ranking of " + base.record().id())));

            // Steps 05-08 through the facade, each reading the plan and ranking the steps before left.
            assertFalse(ranking.worthFixing().isEmpty(), ranking.table().print());
            var fix = lab.fix(ex).tokens(8).timing(FAST).region("rmsnorm", "rmsnorm region", g -> Examples.rmsnorm(g, "bf16")).record(ex);
            assertEquals(ranking.worthFixing().size(), fix.candidates().size());
            var budget = lab.graphBudget(ex).site("rmsnorm", "attention norm", g -> Examples.rmsnorm(g, "bf16")).record(ex);
            assertEquals(4, budget.region("rmsnorm").orElseThrow().graphs(), "2 token counts x 2 grad modes");
            var screen = lab.screen(lab.confirmJob(ex, List.of(Comparison.of("rmsnorm", 8, "eager", "fused")), FAST));
            assertEquals(2, screen.rowCount(), "eager and fused, normal launch (no graphs on the CPU)");
            var correct = lab.correctness(ex).tokens(8).op("rmsnorm", "fused").record(ex);
            assertTrue(correct.passed(), correct.table().print());
            for (Step s : List.of(Step.PLAN, Step.BASELINES, Step.RANK, Step.FIX, Step.GRAPH_BUDGET, Step.CORRECTNESS)) assertTrue(ex.has(s), s.toString());
            assertEquals("-", ex.status().stringColumn("state").get(Step.CONFIRM.ordinal()));
        }
    }
}
