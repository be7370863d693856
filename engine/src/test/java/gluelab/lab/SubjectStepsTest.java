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

    @Test void aStepNotBuiltForAModelSaysWhatToRunInsteadAndTheModelStepsReadThePlan(@TempDir Path root) {
        ExperimentFolder ex = modelExperiment(root);
        for (Step s : List.of(Step.PLAN, Step.BASELINES, Step.PROFILE_DIFF, Step.RANK, Step.STACK, Step.FINDINGS, Step.FEEDBACK)) assertEquals(ex.plan(), ex.planFor(s), s.toString());
        var e = assertThrows(IllegalArgumentException.class, () -> ex.planFor(Step.FIX));
        assertEquals("notebook 05-fix is built for gluelab's op catalogue, not yet for a model, and experiment 'llama' plans the model " + LLAMA
                + ":build: run `gluelab model fix llama` on the command line", e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ex.planFor(Step.IDEAL_TIMES)).getMessage().contains("run 03-profile-diff"));
        for (Step s : Step.values()) {
            if (List.of(Step.PLAN, Step.BASELINES, Step.PROFILE_DIFF, Step.RANK, Step.STACK, Step.FINDINGS, Step.FEEDBACK).contains(s)) continue;
            String m = assertThrows(IllegalArgumentException.class, () -> ex.planFor(s), s.toString()).getMessage();
            assertFalse(m.contains("\n"), "one line: " + m);
        }
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
