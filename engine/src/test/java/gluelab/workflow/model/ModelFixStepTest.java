package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.ops.Replay;
import gluelab.progress.Progress;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Step 05 on the shipped Llama-3 example at tiny dims (two token counts) with the real torch 2.13 CPU
 * and Inductor: fixes of each kind against the model as written in one process, cheapest first, the
 * interaction table, region sizing, a fix that fails as a row with its reason, and bad input (a
 * missing swap target, a replacement that does not import) an error before anything is timed.
 */
@Tag("slow")
class ModelFixStepTest {
    static final Path REWRITES = ModelPlanTest.EXAMPLES.resolve("rewrites.py");
    static Device cpu;
    static TorchSide torch;
    @TempDir static Path root;
    static ExperimentFolder ex;

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
        ex = ExperimentFolder.open("llama-fix", root);
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(ModelPlanTest.EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                List.of()), List.of(16L, 32L), 0.05, "cpu");
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    static ModelFixResult run(ExperimentFolder e, List<String> fixes, ModelFixStep.Sizing sizing) {
        return ModelFixStep.run(e, cpu, torch.bridge(), Presets.LLAMA_3_8B, fixes.stream().map(ModelFix::parse).toList(), sizing, ModelBaselinesTest.QUICK,
                torch.flushBytes(), Progress.NONE);
    }

    @Test void fixesCheapestFirstWithInteractionsKeptInTheExperiment() throws Exception {
        ModelFixResult r = run(ex, List.of("norm=options:model.RMSNorm.forward:epilogue_fusion=false",
                        "rope=swap:model.apply_rotary_emb=" + REWRITES + ":apply_rotary_emb_real+regions:model.apply_rotary_emb"), null);
        assertEquals(List.of("rope", "norm"), r.fixes().stream().map(ModelFix::name).toList(), "a swap is cheaper than a region-scoped option");
        assertEquals(List.of("rope", "norm", "rope", "norm"), r.rows().stream().map(ModelFixResult.FixRow::fix).toList());
        assertEquals(List.of(16L, 16L, 32L, 32L), r.rows().stream().map(ModelFixResult.FixRow::tokens).toList());
        for (ModelFixResult.FixRow row : r.rows()) {
            assertTrue(row.measured(), r.text());
            assertTrue(row.fixedUs() > 0 && row.baselineUs() > 0 && row.compileSeconds() > 0, r.text());
        }
        assertEquals(r.rows().get(0).baselineUs(), r.rows().get(1).baselineUs(), "one baseline per token count, timed beside every fix");
        ModelVariantTiming at16 = r.timings().getFirst();
        ModelVariantTiming.Row rope = at16.row("rope", 16, Replay.DIRECT).orElseThrow();
        assertTrue(rope.run().samples().length >= 1 && rope.compile().graphs() >= 1, "raw samples and the rewrite's compile: " + rope);
        assertEquals(0, at16.row(ModelVariantTiming.BASELINE, 16, Replay.DIRECT).orElseThrow().compile().graphs(), "the model as written is not compiled");
        assertEquals(0, at16.row(ModelVariantTiming.BASELINE, 16, Replay.DIRECT).orElseThrow().sharedParameters());
        // llama3.py at tiny dims: 2 layers of 9 parameters (4 attention and 3 FFN weights, 2 norms), every one tied to the baseline's
        assertEquals(18, rope.sharedParameters(), "the fix runs on the baseline's own weights: " + rope);

        assertEquals(List.of("baseline (no fix)", "alone: rope", "alone: norm", "all together"),
                r.interactions().stream().filter(c -> c.tokens() == 16).map(ModelFixResult.Combination::label).toList());
        ModelFixResult.Combination together = r.interactions().stream().filter(c -> c.tokens() == 16 && c.label().equals("all together")).findFirst().orElseThrow();
        assertEquals(List.of("rope", "norm"), together.fixes());
        assertTrue(together.us() > 0 && together.reason().isEmpty(), r.text());
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("T=16: together ")), r.notes().toString());

        assertTrue(r.sizing().isEmpty());
        ModelFixResult back = ModelFixStep.load(ex);
        assertEquals(r.rows(), back.rows());
        assertEquals(rope.run().samples().length, back.timings().getFirst().row("rope", 16, Replay.DIRECT).orElseThrow().run().samples().length);
        assertTrue(ex.has(Step.FIX));
        String devlog = Files.readString(ex.devlog().file());
        assertTrue(devlog.contains("fix rope (swap + regions) @ 32 tokens fwd+bwd: "), "every part's kind: " + devlog);
        assertTrue(r.text().lines().anyMatch(l -> l.startsWith("  rope ") && l.contains(" swap + regions ")), r.text());
        assertEquals(List.of("swap + regions", "options", "swap + regions", "options"), ModelTables.fixes(r).stringColumn("kind").asList());
        assertTrue(r.text().contains("interactions"), r.text());
    }

    @Test void regionSizingABC() throws Exception {
        ExperimentFolder e = ExperimentFolder.open("llama-sizing", root);
        ModelPlan.write(e, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(ModelPlanTest.EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                List.of()), List.of(16L), 0.05, "cpu");
        ModelFixResult r = run(e, List.of(), new ModelFixStep.Sizing("model.apply_rotary_emb", "model.repeat_kv", "model.Attention.forward"));
        assertEquals(List.of("A", "A+B", "C"), r.sizing().stream().map(ModelFixResult.SizingRow::arm).toList(), r.text());
        assertTrue(r.sizing().stream().allMatch(s -> s.us() > 0 && s.reason().isEmpty() && !Double.isNaN(s.deltaUs())), r.text());
        assertEquals(List.of("model.apply_rotary_emb", "model.repeat_kv"), r.sizing().get(1).regions());
        assertTrue(r.text().contains("region sizing"), r.text());
    }

    @Test void aFixThatFailsIsARowWithItsReason(@TempDir Path dir) throws Exception {
        Path breaks = Files.writeString(dir.resolve("breaks.py"), """
                def rope_that_branches(xq, xk, freqs_cis):
                    if xq.sum() > 0:  # on data: a graph break, an error under fullgraph=True
                        xq = xq * 1
                    return xq, xk
                """);
        ExperimentFolder e = copyOfPlan("llama-fix-fails");
        ModelFixResult r = run(e, List.of("branchy=swap:model.apply_rotary_emb=" + breaks + ":rope_that_branches+regions:model.apply_rotary_emb"), null);
        assertEquals(2, r.rows().size(), r.text());
        for (ModelFixResult.FixRow row : r.rows()) {
            assertFalse(row.measured(), r.text());
            assertTrue(Double.isNaN(row.fixedUs()) && row.reason().contains("breaks.py:"), "names the analyst's line: " + row.reason());
        }
        assertFalse(r.timings().getFirst().row(ModelVariantTiming.BASELINE, 16, Replay.DIRECT).orElseThrow().failed(), "the baseline is still measured");
        assertTrue(r.text().contains("FAILED: "), r.text());
        assertEquals(r.rows(), ModelFixStep.load(e).rows(), "the failed rows are kept");
    }

    @Test void aSwapTargetThatDoesNotExistIsAnErrorBeforeAnythingIsTimed() {
        ExperimentFolder e = copyOfPlan("llama-fix-no-target");
        var err = assertThrows(IllegalArgumentException.class, () -> run(e, List.of("rope=swap:model.Attention.rotary=" + REWRITES + ":apply_rotary_emb_real"), null));
        assertTrue(err.getMessage().contains("fix rope: swap target model.Attention.rotary: model.Attention has no attribute 'rotary'"), err.getMessage());
        assertFalse(err.getMessage().contains("\n"), err.getMessage());
        assertFalse(e.has(Step.FIX));
        assertFalse(Files.exists(e.dir().resolve(ExperimentFolder.STEPS_DIR).resolve(Step.FIX.notebook())), "nothing was timed, and no empty steps/05-fix/ is left");
    }

    @Test void aReplacementThatDoesNotImportIsAnErrorNamingFileAndFunction(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("bad_rewrites.py"), "import torch\nimport no_such_module_anywhere\n\ndef rope(xq, xk, f):\n    return xq, xk\n");
        ExperimentFolder e = copyOfPlan("llama-fix-no-import");
        var err = assertThrows(IllegalArgumentException.class, () -> run(e, List.of("rope=swap:model.apply_rotary_emb=" + bad + ":rope"), null));
        assertTrue(err.getMessage().contains("fix rope: replacement " + bad + ":rope: "), err.getMessage());
        assertTrue(err.getMessage().contains("does not import: ModuleNotFoundError: No module named 'no_such_module_anywhere' (bad_rewrites.py:2"), err.getMessage());
        var missing = assertThrows(IllegalArgumentException.class, () -> run(e, List.of("rope=swap:model.apply_rotary_emb=" + REWRITES + ":no_such_rewrite"), null));
        assertTrue(missing.getMessage().contains("rewrites.py has no attribute 'no_such_rewrite'"), missing.getMessage());
        assertFalse(e.has(Step.FIX));
    }

    static ExperimentFolder copyOfPlan(String name) {
        ExperimentFolder e = ExperimentFolder.open(name, root);
        try {
            Files.createDirectories(e.dir());
            Files.copy(ex.planFile(), e.planFile());
        } catch (java.io.IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
        return e;
    }
}
