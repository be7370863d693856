package gluelab.lab;

import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.trace.SampleTraces;
import gluelab.units.Bandwidth;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** Steps 02 and 03 on one experiment: they need the plan, and leave their tables and chart in the folder. */
class ReadingStepsTest {
    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void idealTimesAndProfileDiffLandInTheExperiment(@TempDir Path root) throws Exception {
        try (Gluelab lab = Gluelab.open("cpu").assumeBandwidth(Bandwidth.gbPerSecond(50), 1e11)) {
            ExperimentFolder ex = lab.experiment("story", root);
            var noPlan = assertThrows(IllegalStateException.class, () -> lab.idealTimes(ex));
            assertTrue(noPlan.getMessage().contains("run 00-plan first"), noPlan.getMessage());
            lab.plan(ex, "llama-3-8b", 0.01, "8,16");

            var floors = lab.idealTimes(ex);
            assertEquals(java.util.Set.of(8, 16), new java.util.HashSet<>(floors.intColumn("tokens").asList()));
            Path csv = ex.file(Step.IDEAL_TIMES, "ideal-times");
            assertEquals(floors.rowCount() + 1, Files.readAllLines(csv).size(), "header + one line per floor");

            var diff = lab.profileDiff(ex, SampleTraces.of("block_eager_T4096.json.gz").toString(), SampleTraces.of("block_compiled_T4096.json.gz").toString());
            var families = Gluelab.families(diff);
            assertEquals(diff.families().size(), families.rowCount());
            assertTrue(Files.size(ex.file(Step.PROFILE_DIFF, "families-chart")) > 1000, "a PNG chart");
            assertTrue(ex.file(Step.PROFILE_DIFF, "families-chart").startsWith(ex.chartsDir()));
            assertTrue(ex.require(Step.PROFILE_DIFF).summary().contains("kernel time"));
            assertTrue(ex.devlog().read().stream().anyMatch(e -> e.text().startsWith("profile diff block_eager_T4096")));
        }
    }
}
