package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.files.Json;
import gluelab.floor.FlopPeak;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelGraphs;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.PythonFinder;
import gluelab.torch.PythonSource;
import gluelab.torch.TorchException;
import gluelab.torch.TorchSide;
import gluelab.workflow.confirm.ModelConfirmation;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.*;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.writeup.PrChecker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Notebooks 09-11 on the analyst's model, as `gluelab run` runs them: steps 00-08 of the shipped
 * Llama-3 example (tiny dims, 16 tokens, the real torch on the CPU) are prepared through the engine,
 * then the notebooks write the stack, the findings doc, the PR text and the feedback from them.
 */
@Tag("slow")
class ModelWriteupNotebooksTest {
    static final Path NOTEBOOKS = Path.of("../notebooks").toAbsolutePath().normalize();
    static final Path MODELS = NOTEBOOKS.resolveSibling("docs/examples/models");
    static final List<String> STORY = List.of("09-stack", "10-findings", "11-feedback");
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 1.0, 50), 1);
    @TempDir static Path dir;
    static ExperimentFolder ex;
    static List<JsonNode> executed = new ArrayList<>();
    static KernelCommandsTest.Result run;
    static double prepareSeconds, notebookSeconds;

    @BeforeAll static void prepareStepsThroughCorrectnessThenRunTheNotebooks() throws Exception {
        PythonChoice python = null;
        String why = null;
        try {
            python = PythonFinder.standard().find(null, PythonSource.ARGUMENT);
        } catch (TorchException e) {
            why = e.getMessage();
        }
        assumeTrue(why == null, "no Python with torch (set GLUELAB_PYTHON): " + why);
        long t0 = System.nanoTime();
        // The notebooks are copied into dir, outside the checkout, so their experiments root is dir/out/experiments.
        ex = ExperimentFolder.open("llama", dir.resolve(ExperimentFolder.DEFAULT_ROOT));
        var spec = Presets.LLAMA_3_8B;
        List<ModelFix> fixes = List.of(ModelFix.parse("rope=swap:model.apply_rotary_emb=" + MODELS.resolve("rewrites.py") + ":apply_rotary_emb_real"));
        try (Device cpu = Devices.open("cpu")) {
            try (TorchSide torch = TorchSide.start(python, cpu)) {
                var bridge = torch.bridge();
                ModelPlan.write(ex, bridge, spec, new ModelSubject(MODELS.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "", List.of()),
                        List.of(16L), 0.0002, "cpu");
                ModelBaselinesStep.run(ex, bridge, spec, QUICK, torch.flushBytes(), Progress.NONE);
                ModelProfileStep.run(ex, bridge, spec, 20e9, Progress.NONE);
                ModelRankStep.run(ex, ModelTree.EAGER, 20e9, FlopPeak.declared(1e11));
                ModelFixStep.run(ex, bridge, spec, fixes, null, QUICK, torch.flushBytes(), Progress.NONE);
                ModelGraphsStep.run(ex, bridge, spec, new ModelGraphs.Options(List.of(ModelTree.PER_BLOCK), null, "aot_eager", true, 0), Progress.NONE);
                ModelCheckStep.run(ex, bridge, spec, fixes, ModelCheckStep.DTYPES, 0, Progress.NONE);
            }
            new ModelConfirmation(cpu, python).run(ex, spec, fixes, QUICK);
        }
        long t1 = System.nanoTime();
        List<String> args = new ArrayList<>(List.of("run"));
        for (String nb : STORY) {
            Files.copy(NOTEBOOKS.resolve(nb + ".ipynb"), dir.resolve(nb + ".ipynb"));
            args.add(dir.resolve(nb + ".ipynb").toString());
        }
        args.addAll(List.of("-p", "experiment=llama", "-p", "commit=abc1234", "--out", dir.resolve("executed").toString()));
        run = KernelCommandsTest.gluelab(args.toArray(String[]::new));
        for (String nb : STORY) {
            Path f = dir.resolve("executed/" + nb + ".ipynb");
            if (Files.exists(f)) executed.add(Json.MAPPER.readTree(f.toFile()));
        }
        prepareSeconds = (t1 - t0) * 1e-9;
        notebookSeconds = (System.nanoTime() - t1) * 1e-9;
        System.err.printf("ModelWriteupNotebooksTest: steps 00-08 through the engine %.1f s, notebooks 09-11 %.1f s%n", prepareSeconds, notebookSeconds);
    }

    @Test void theThreeNotebooksRunOnTheModelWithoutAnError() {
        assertEquals(0, run.code(), run.toString());
        assertEquals(3, executed.size());
        for (JsonNode nb : executed) assertFalse(ModelNotebooksTest.shown(nb).contains("ERROR OUTPUT"), ModelNotebooksTest.shown(nb));
        for (Step s : List.of(Step.STACK, Step.FINDINGS, Step.FEEDBACK)) assertTrue(ex.has(s), s.toString());
    }

    @Test void theStackNamesTheFixesFilesAndFunctions() {
        String s = ModelNotebooksTest.shown(executed.get(0));
        ChangeStack stack = ChangeStack.load(ex.stackFile());
        var rope = stack.change("rope");
        assertTrue(s.contains("rope: " + rope.headline().describe()), s);
        assertTrue(s.contains("rope: `llama3.py:apply_rotary_emb` (def at line 48): replaced by `rewrites.py:apply_rotary_emb_real`"), s);
        assertTrue(s.contains("llama3.py:build (runs the changed path)"), s);
        assertEquals("abc1234", rope.commit());
    }

    @Test void theFindingsAndPrTextCarryTheModelsNumbersAndPassTheCheck() throws Exception {
        String s = ModelNotebooksTest.shown(executed.get(1));
        assertTrue(s.contains("apply_rotary_emb (llama3.py:"), "the ranking's source locations in the findings doc: " + s);
        assertTrue(s.contains("rope.md: 0 violation(s)"), s);
        Path pr = ex.prDir().resolve("rope.md");
        assertEquals(List.of(), PrChecker.check(pr, ChangeStack.load(ex.stackFile())));
        String text = Files.readString(pr);
        assertTrue(text.contains("`llama3.py:apply_rotary_emb` (def at line 48)") && text.contains("`rewrites.py:apply_rotary_emb_real` (def at line 27)"), text);
        String findings = Files.readString(ex.findingsFile());
        assertTrue(findings.contains("### Confirmation in fresh processes (step 07)") && findings.contains("### Correctness (step 08)"), findings);
    }

    @Test void theFeedbackIsWrittenAndTheStoryEnds() {
        String s = ModelNotebooksTest.shown(executed.get(2));
        assertTrue(Files.isRegularFile(ex.feedbackFile()));
        assertTrue(s.contains("11-feedback"), "the status table lists every step: " + s);
    }
}
