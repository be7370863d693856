package gluelab.lab;

import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** What a notebook step does for the plan's subject, short of running torch (ModelNotebooksTest runs the model's notebooks for real). */
class SubjectStepsTest {
    static final Path LLAMA = Path.of("../docs/examples/models/llama3.py").toAbsolutePath().normalize();

    static ExperimentFolder modelExperiment(Path root) {
        ExperimentFolder ex = ExperimentFolder.open("llama", root);
        ex.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", new ModelSubject(LLAMA.toString(), "build", "x:T,64:fp32", "", List.of())));
        return ex;
    }

    static final List<Step> BUILT_FOR_A_MODEL = List.of(Step.PLAN, Step.BASELINES, Step.IDEAL_TIMES, Step.PROFILE_DIFF, Step.RANK, Step.FIX, Step.GRAPH_BUDGET,
            Step.CONFIRM, Step.CORRECTNESS);

    @Test void aStepNotBuiltForAModelSaysWhatToRunInsteadAndTheModelStepsReadThePlan(@TempDir Path root) {
        ExperimentFolder ex = modelExperiment(root);
        for (Step s : BUILT_FOR_A_MODEL) assertEquals(ex.plan(), ex.planFor(s), s.toString());
        var e = assertThrows(IllegalArgumentException.class, () -> ex.planFor(Step.STACK));
        assertEquals("notebook 09-stack is built for gluelab's op catalogue, not yet for a model, and experiment 'llama' plans the model " + LLAMA
                + ":build: this step has no model form yet; the model's numbers are in the experiment's steps/ folder and devlog.md", e.getMessage());
        for (Step s : Step.values()) {
            if (BUILT_FOR_A_MODEL.contains(s)) continue;
            String m = assertThrows(IllegalArgumentException.class, () -> ex.planFor(s), s.toString()).getMessage();
            assertFalse(m.contains("\n"), "one line: " + m);
        }
    }

    @Test void step05sDefaultsAreTheShippedExamplesAndAnotherModelIsToldWhatToPass(@TempDir Path root) {
        ExperimentFolder ex = modelExperiment(root);
        var d = SubjectFixSteps.modelFixes(ex, "");
        assertEquals(List.of("rope=swap:model.apply_rotary_emb=" + LLAMA.resolveSibling("rewrites.py") + ":apply_rotary_emb_real+regions:model.apply_rotary_emb"), d.fixes());
        assertEquals(java.util.Map.of("rope", "qnorm_rope_complex"), d.references());
        assertEquals(List.of("rope"), d.parsed().stream().map(gluelab.torch.ModelFix::name).toList());
        var given = SubjectFixSteps.modelFixes(ex, " a=regions:model.RMSNorm.forward ; b=regions:model.Attention.forward,model.FeedForward.forward");
        assertEquals(List.of("a=regions:model.RMSNorm.forward", "b=regions:model.Attention.forward,model.FeedForward.forward"), given.fixes());
        assertEquals(java.util.Map.of(), given.references());

        ExperimentFolder other = ExperimentFolder.open("mine", root);
        other.plan(ExperimentPlan.of("llama-3-8b", List.of(16L), 0.01, "cpu", new ModelSubject(root.resolve("blocks.py").toString(), "build", "x:T,64:fp32", "", List.of())));
        var e = assertThrows(IllegalArgumentException.class, () -> SubjectFixSteps.modelFixes(other, ""));
        assertTrue(e.getMessage().startsWith("no fixes given, and blocks.py:build is not a shipped example with default fixes: pass them, e.g. -p modelFixes='")
                && e.getMessage().contains("`gluelab model fix mine --fix NAME=SPEC`"), e.getMessage());
    }

    @Test void aCatalogueExperimentReadsItsPlanInEveryStep(@TempDir Path root) {
        ExperimentFolder ex = ExperimentFolder.open("demo", root);
        ex.plan("llama-3-8b", List.of(32L), 0.01, "cpu");
        for (Step s : Step.values()) assertEquals(ex.plan(), ex.planFor(s));
    }

    @Test void regionsAreCommaSeparatedAndBlankIsNone() {
        assertEquals(List.of(), SubjectSteps.regions(""));
        assertEquals(List.of(), SubjectSteps.regions(null));
        assertEquals(List.of("model.Attention.rope", "model.FeedForward.forward"), SubjectSteps.regions(" model.Attention.rope, model.FeedForward.forward ,"));
    }

    /** The engine's tests run in engine/, a folder below the checkout's docs/, as a notebook's kernel runs in notebooks/. */
    @Test void aRelativeModelFileIsFoundInTheWorkingFolderOrTheNearestFolderAboveIt() {
        assertEquals(LLAMA, gluelab.torch.ModelEntry.find("docs/examples/models/llama3.py:build").file());
        assertEquals(LLAMA, gluelab.torch.ModelEntry.find(LLAMA + ":build").file());
        var e = assertThrows(IllegalArgumentException.class, () -> gluelab.torch.ModelEntry.find("nowhere/blocks.py:build"));
        assertEquals("--model-file 'nowhere/blocks.py:build': no such file " + Path.of("nowhere/blocks.py").toAbsolutePath(), e.getMessage());
    }
}
