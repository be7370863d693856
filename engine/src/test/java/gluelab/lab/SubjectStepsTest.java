package gluelab.lab;

import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
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

    /** Notebook 00 opens the experiment a cell before it plans: a plan refused for its input leaves no empty experiment behind. */
    @Test void aRefusedPlanLeavesNoEmptyExperimentAndAPlannedOneIsKept(@TempDir Path root) {
        try (Gluelab lab = Gluelab.open("cpu")) {
            ExperimentFolder fresh = lab.experiment("nbm", root);
            assertThrows(IllegalArgumentException.class, () -> lab.plan(fresh, "llama-3-8b", 0.01, "16", "nowhere/blocks.py:build", "x:T,64:fp32", ""));
            assertFalse(Files.exists(root.resolve("nbm")), "no empty experiment left");
            ExperimentFolder planned = modelExperiment(root);
            assertThrows(IllegalArgumentException.class, () -> lab.plan(planned, "llama-3-8b", 0.01, "16", "nowhere/blocks.py:build", "x:T,64:fp32", ""));
            assertTrue(planned.hasPlan(), "an experiment with a plan keeps it");
        }
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
