package gluelab.lab;

import gluelab.torch.ModelFix;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.model.ModelFixStep;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Step 05's "best known kernel" row: the catalogue's fused kernel for a fix's op, timed on the lab's CPU beside its eager form and kept with the step's result. */
@Tag("slow")
class ModelFixReferencesTest {
    @Test void aFixsOpGetsTheCataloguesFusedKernelAsAReferenceRow(@TempDir Path root) throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("refs", root);
        ex.plan("llama-3-8b", List.of(16L), 0.05, "cpu");
        ModelFix norm = ModelFix.parse("norm=regions:model.RMSNorm.forward");
        ModelFixResult step05 = new ModelFixResult(ModelFixResult.FORMAT, "llama3.py:build", List.of(norm), List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
        Path file = ex.stepDir(Step.FIX).resolve(ModelFixStep.FILE + ".json");
        StepResults.save(file, step05);
        ex.done(Step.FIX, List.of(), Map.of(ModelFixStep.FILE, ex.dir().relativize(file).toString()), "by hand");
        try (Gluelab lab = Gluelab.open("cpu")) {
            var err = assertThrows(IllegalArgumentException.class, () -> lab.modelFixReferences(ex, Map.of("rope", "rmsnorm")));
            assertTrue(err.getMessage().contains("step 05 tried no fix 'rope'"), err.getMessage());
            ModelFixResult r = lab.modelFixReferences(ex, Map.of("norm", "rmsnorm"));
            ModelFixResult.ReferenceRow ref = r.references().getFirst();
            assertEquals("rmsnorm", ref.op());
            assertTrue(ref.reason().isEmpty(), ref.reason());
            assertTrue(ref.kernelUs() > 0 && ref.eagerUs() > 0, ref.toString());
            assertTrue(ref.caveat().contains("not inside the model"), ref.caveat());
            assertTrue(r.text().contains("reference (best known kernel"), r.text());
            assertEquals(r.references(), ModelFixStep.load(ex).references(), "kept with the step's result");
            assertTrue(Files.readString(ex.devlog().file()).contains("best known kernel for fix norm"));
        }
    }
}
