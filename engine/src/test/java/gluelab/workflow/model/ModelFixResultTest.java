package gluelab.workflow.model;

import gluelab.torch.ModelFix;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Which token counts step 05 measured, and what it kept when it stopped part-way (ModelConfirmationTest confirms such a step for real). */
class ModelFixResultTest {
    static final ModelFix ROPE = ModelFix.parse("rope=regions:model.apply_rotary_emb");

    static ModelFixResult.FixRow row(long t, ModelFixResult.Status status, String reason) {
        boolean ok = status == ModelFixResult.Status.MEASURED;
        return new ModelFixResult.FixRow("rope", ModelFix.Kind.REGIONS, t, status, ok ? 100 : Double.NaN, ok ? 90 : Double.NaN, 1.5, "", reason);
    }

    @Test void tokenCountsWithNoMeasuredRowAreNamedWithWhy() {
        var r = new ModelFixResult(ModelFixResult.FORMAT, "llama3.py:build", List.of(ROPE),
                List.of(row(16, ModelFixResult.Status.MEASURED, ""), row(32, ModelFixResult.Status.FAILED, "the torch harness ended")), List.of(), List.of(),
                List.of(), List.of(), List.of());
        assertEquals(List.of(16L), r.measuredTokens());
        assertEquals(Map.of(32L, "the torch harness ended", 64L, "step 05 stopped before it timed this token count"), r.notMeasured(List.of(16L, 32L, 64L)));
    }

    /** A swap compiled as a region said "swap": its kind column names every part's kind, as the write-up's Problem line does. */
    @Test void theKindColumnNamesEveryPartsKind() {
        ModelFix swapRegion = ModelFix.parse("a-long-fix-name-for-rope=swap:model.apply_rotary_emb=" + ModelPlanTest.EXAMPLES.resolve("rewrites.py")
                + ":apply_rotary_emb_real+regions:model.apply_rotary_emb");
        var swapped = new ModelFixResult.FixRow(swapRegion.name(), swapRegion.kind(), 16, ModelFixResult.Status.MEASURED, 100, 90, 1.5, "", "");
        var r = new ModelFixResult(ModelFixResult.FORMAT, "llama3.py:build", List.of(swapRegion, ROPE), List.of(swapped, row(16, ModelFixResult.Status.MEASURED, "")),
                List.of(), List.of(), List.of(), List.of(), List.of());
        assertEquals("swap + regions", r.kinds(swapped));
        assertEquals("regions", r.kinds(r.rows().get(1)));
        assertEquals(List.of("swap + regions", "regions"), ModelTables.fixes(r).stringColumn("kind").asList());
        List<String> lines = r.text().lines().toList();
        int tokens = lines.get(1).indexOf("tokens");
        assertTrue(lines.get(2).contains(" swap + regions ") && lines.get(3).contains(" regions "), r.text());
        for (String l : lines.subList(2, 4)) assertEquals("16", l.substring(tokens, tokens + 6).strip(), "the columns stay in line:\n" + r.text());
        assertEquals("2 fixes x 1 token count: 2 of 2 rows measured, 2 wins: [a-long-fix-name-for-rope T=16, rope T=16]", r.summary());
    }

    @Test void aStepThatStoppedPartWayIsReadFromItsFileAndNoFileIsTheMissingStep(@TempDir Path root) {
        ExperimentFolder ex = ExperimentFolder.open("llama", root);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L, 32L), 0.01, "cpu", new ModelSubject("/m/llama3.py", "build", "x:T,64:fp32", "", List.of())));
        var e = assertThrows(IllegalStateException.class, () -> ModelFixStep.load(ex));
        assertEquals("experiment 'llama' has no fix results: run 05-fix (gluelab model fix llama) first", e.getMessage());
        var partial = new ModelFixResult(ModelFixResult.FORMAT, "llama3.py:build", List.of(ROPE), List.of(row(16, ModelFixResult.Status.MEASURED, "")),
                List.of(), List.of(), List.of(), List.of(), List.of());
        StepResults.save(ex.stepDir(Step.FIX).resolve(ModelFixStep.FILE + ".partial.json"), partial);
        assertFalse(ex.has(Step.FIX));
        assertEquals(partial.rows(), ModelFixStep.load(ex).rows());
        // Written so by a gluelab that saved part-way over the step's record: read as well.
        ExperimentFolder old = ExperimentFolder.open("older", root);
        old.plan(ExperimentPlan.of("llama-3-8b", List.of(16L, 32L), 0.01, "cpu", new ModelSubject("/m/llama3.py", "build", "x:T,64:fp32", "", List.of())));
        StepResults.save(old.stepDir(Step.FIX).resolve(ModelFixStep.FILE + ".json"), partial);
        assertEquals(partial.rows(), ModelFixStep.load(old).rows());
    }

    /** A rerun stopped part-way: the finished record and its marker are what step 05 kept, not the part-way rows beside them. */
    @Test void aFinishedStepIsReadFromItsRecordNotFromAStoppedRerunsPartWayOne(@TempDir Path root) {
        ExperimentFolder ex = ExperimentFolder.open("llama", root);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L, 32L), 0.01, "cpu", new ModelSubject("/m/llama3.py", "build", "x:T,64:fp32", "", List.of())));
        var whole = new ModelFixResult(ModelFixResult.FORMAT, "llama3.py:build", List.of(ROPE), List.of(row(16, ModelFixResult.Status.MEASURED, ""),
                row(32, ModelFixResult.Status.MEASURED, "")), List.of(), List.of(), List.of(), List.of(), List.of());
        Path file = ex.stepDir(Step.FIX).resolve(ModelFixStep.FILE + ".json");
        StepResults.save(file, whole);
        ex.done(Step.FIX, List.of(), Map.of(ModelFixStep.FILE, ex.dir().relativize(file).toString()), "finished");
        StepResults.save(file.resolveSibling(ModelFixStep.FILE + ".partial.json"), new ModelFixResult(ModelFixResult.FORMAT, "llama3.py:build", List.of(ROPE),
                List.of(row(16, ModelFixResult.Status.MEASURED, "")), List.of(), List.of(), List.of(), List.of(), List.of()));
        assertEquals(whole.rows(), ModelFixStep.load(ex).rows());
        assertEquals("the rows of 1 of 2 token counts kept in steps/05-fix/model-fix.partial.json", ModelFixStep.keptSoFar(ex).what());
        assertFalse(ModelFixStep.keptSoFar(ex).resumed(), "step 05 times every token count again");
    }
}
