package gluelab.workflow.graphbudget;

import gluelab.compilelog.CompileLogParser;
import gluelab.compilelog.GraphBudget;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.expr.workbench.Examples;
import gluelab.model.Presets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class RegionBudgetTest {
    static RegionBudget qkNorm() {
        int kv = Presets.LLAMA_3_8B.kvHeads();
        return RegionBudget.of(Presets.LLAMA_3_8B).tokens(2048, 4096)
                .site("qk_norm", "q", g -> Examples.qnorm(g, "bf16"))
                .site("qk_norm", "k", g -> Examples.qnorm(g.dim("H", kv), "bf16"))
                .site("qk_norm", "q again", g -> Examples.qnorm(g, "bf16"));
    }

    @Test
    void callSitesTokenCountsAndTheNoGradPassMultiply() {
        BudgetResult r = qkNorm().count();
        RegionGraphs g = r.region("qk_norm").orElseThrow();
        // q and k differ in heads; the second q site has q's shapes and adds nothing: 2 shapes x 2 token counts x 2 grad modes.
        assertEquals(8, g.graphs());
        assertEquals("tight", g.status());
        assertEquals(3 * 2 * 2, r.calls().size());
        assertEquals(8, r.callTable().stringColumn("signature").unique().size());
        assertEquals(4, qkNorm().withoutNoGradPass().count().region("qk_norm").orElseThrow().graphs());
        assertEquals("over the limit", qkNorm().tokens(16384).count().region("qk_norm").orElseThrow().status());
    }

    @Test
    void dynamoLogsJoinTheTableAndTheStepLandsInTheExperiment(@TempDir Path root) throws Exception {
        GraphBudget log = GraphBudget.of(CompileLogParser.read(Path.of(getClass().getResource("/compilelog/layer_idx_guard.log").toURI())));
        ExperimentFolder ex = ExperimentFolder.open("budget", root);
        BudgetResult r = qkNorm().withoutNoGradPass().dynamoLog(log).record(ex);
        assertTrue(r.regions().size() > 1);
        assertTrue(r.regions().stream().anyMatch(x -> x.source().startsWith("dynamo log") && x.graphs() >= 8), r.table().print());
        assertEquals(r, RegionBudget.latest(ex));
        assertTrue(ex.require(Step.GRAPH_BUDGET).summary().contains("qk_norm 4 of 8 (ok)"), ex.require(Step.GRAPH_BUDGET).summary());
        assertThrows(IllegalArgumentException.class, () -> RegionBudget.of(Presets.LLAMA_3_8B).site("r", "s", g -> Examples.qnorm(g, "bf16")).count());
    }
}
