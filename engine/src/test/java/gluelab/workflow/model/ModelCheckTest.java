package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.torch.ModelFix;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.correctness.CheckRow;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.correctness.StepCorrectness;
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
 * Step 08 on the shipped Llama-3 example at tiny dims with the real torch 2.13 CPU: the true rewrite of its RoPE passes
 * against fp64 in bf16 and fp32, and so does its autograd.Function with a hand-written backward; a rewrite whose angle is 0.1% off fails in fp32 with its limit beside it; a rewrite that
 * adds fresh noise each step fails the repeat; a rewrite that raises names its file and line, and the rows before it stay.
 */
@Tag("slow")
class ModelCheckTest {
    static Device cpu;
    static TorchSide torch;
    static final Path REWRITES = ModelPlanTest.EXAMPLES.resolve("rewrites.py");

    /** Rewrites of llama3.apply_rotary_emb that are wrong in three ways (line 12 raises). */
    static final String WRONG = """
            import torch
            from rewrites import cos_sin, rotate_real


            def apply_rotary_emb_off(xq, xk, freqs_cis):
                cos, sin = cos_sin(freqs_cis, xq.shape[1])
                return rotate_real(xq, cos * 1.001, sin), rotate_real(xk, cos * 1.001, sin)


            def apply_rotary_emb_raises(xq, xk, freqs_cis):
                cos, sin = cos_sin(freqs_cis, xq.shape[1])
                raise ValueError("not written yet")


            def apply_rotary_emb_noisy(xq, xk, freqs_cis):
                cos, sin = cos_sin(freqs_cis, xq.shape[1])
                return rotate_real(xq, cos, sin) + 1e-6 * torch.randn_like(xq), rotate_real(xk, cos, sin)
            """;

    @BeforeAll static void start() {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        cpu = Devices.open("cpu");
        torch = TorchSide.start(python, cpu);
    }

    @AfterAll static void stop() {
        if (torch != null) torch.close();
        if (cpu != null) cpu.close();
    }

    static ExperimentFolder planned(Path root) {
        ExperimentFolder ex = ExperimentFolder.open("llama", root.resolve("experiments"));
        ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(ModelPlanTest.EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                List.of()), List.of(16L), 0.01, "cpu");
        return ex;
    }

    static List<CheckRow> of(CorrectnessResult r, String fix, DType dt) {
        return r.rows().stream().filter(x -> x.candidate().equals(fix) && x.dtype() == dt).toList();
    }

    @Test void theTrueRewritePassesAndWrongOnesFailWithTheirReason(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("wrong.py"), WRONG);
        Files.copy(REWRITES, root.resolve("rewrites.py"));
        ExperimentFolder ex = planned(root);
        String wrong = root.resolve("wrong.py").toString();
        List<ModelFix> fixes = List.of(ModelFix.parse("real=swap:model.apply_rotary_emb=" + REWRITES + ":apply_rotary_emb_real"),
                ModelFix.parse("off=swap:model.apply_rotary_emb=" + wrong + ":apply_rotary_emb_off"),
                ModelFix.parse("raises=swap:model.apply_rotary_emb=" + wrong + ":apply_rotary_emb_raises"),
                ModelFix.parse("noisy=swap:model.apply_rotary_emb=" + wrong + ":apply_rotary_emb_noisy"),
                ModelFix.parse("handbwd=autograd:model.apply_rotary_emb=" + REWRITES + ":apply_rotary_emb_autograd"));
        CorrectnessResult r = ModelCheckStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, fixes, ModelCheckStep.DTYPES, 0, Progress.NONE);
        String table = r.table().printAll();

        for (DType dt : ModelCheckStep.DTYPES) {
            List<CheckRow> real = of(r, "real", dt);
            assertTrue(real.stream().allMatch(CheckRow::ok), dt + ": the true rewrite passes\n" + table);
            // x's gradient, every parameter's gradient (2 layers x 9 parameters), the output, and the repeat
            assertTrue(real.stream().anyMatch(x -> x.tensor().equals("out0") && x.pass().equals("fwd")), table);
            assertTrue(real.stream().anyMatch(x -> x.tensor().equals("grad x")), table);
            assertTrue(real.stream().anyMatch(x -> x.tensor().equals("grad layers.1.attention.wq.weight")), table);
            assertEquals(18, real.stream().filter(x -> x.tensor().startsWith("grad layers.")).count(), table);
            assertTrue(real.stream().anyMatch(x -> x.pass().equals("fwd+bwd x2") && x.ok()), table);
            assertTrue(of(r, "handbwd", dt).stream().allMatch(CheckRow::ok), dt + ": the hand-written backward of rewrites.RotaryReal passes\n" + table);
            assertEquals(real.size(), of(r, "handbwd", dt).size());
            CheckRow raises = of(r, "raises", dt).getFirst();
            assertFalse(raises.ok());
            assertTrue(raises.note().contains("ValueError: not written yet") && raises.note().contains("wrong.py:12"), "names the rewrite's line: " + raises.note());
        }
        List<CheckRow> off = of(r, "off", DType.FP32).stream().filter(x -> !x.ok()).toList();
        assertFalse(off.isEmpty(), "an angle 0.1% off fails in fp32\n" + table);
        CheckRow worst = off.stream().max(java.util.Comparator.comparingDouble(x -> x.vsFp64().relL2())).orElseThrow();
        assertTrue(worst.vsFp64().relL2() > worst.tolerance() && worst.tolerance() >= 1e-5 && worst.tolerance() < 1e-4, worst.verdict());
        assertTrue(worst.verdict().startsWith("FAIL (rel L2") && worst.verdict().contains("limit 1.0e-05"), worst.verdict());
        // RoPE turns q and k: their projections' gradients show the angle; the residual stream's output hides it within fp32's limit.
        assertTrue(off.stream().anyMatch(x -> x.tensor().equals("grad layers.0.attention.wq.weight")), table);
        assertTrue(of(r, "off", DType.BF16).stream().allMatch(CheckRow::ok), "0.1% is within bf16's rounding: the check says so rather than guess\n" + table);

        CheckRow repeat = of(r, "noisy", DType.FP32).stream().filter(x -> x.pass().equals("fwd+bwd x2")).findFirst().orElseThrow();
        assertFalse(repeat.ok(), repeat.verdict());
        assertTrue(repeat.verdict().contains("vs first step") && repeat.note().contains("nondeterministic"), repeat.verdict());

        assertFalse(r.passed());
        assertTrue(ex.has(Step.CORRECTNESS));
        assertEquals(r.rows().size(), StepCorrectness.latest(ex).rows().size(), "correctness.json in the catalogue's shape");
        assertTrue(Files.readString(ex.file(Step.CORRECTNESS, ModelCheckStep.SUMMARY)).contains("rel_l2_limit"));
    }

    /**
     * Checking more fixes adds to step 08: a check of only failing fixes marks it failed, a passing fix's rows join them, and a fix
     * checked again replaces its own rows while the other fix's stay; the summary counts both fixes and names the failing one.
     */
    @Test void checksAddToStep08AndAFixCheckedAgainReplacesItsRows(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("wrong.py"), WRONG);
        Files.copy(REWRITES, root.resolve("rewrites.py"));
        ExperimentFolder ex = planned(root);
        List<DType> fp32 = List.of(DType.FP32);
        ModelFix raises = ModelFix.parse("raises=swap:model.apply_rotary_emb=" + root.resolve("wrong.py") + ":apply_rotary_emb_raises");
        ModelFix real = ModelFix.parse("real=swap:model.apply_rotary_emb=" + REWRITES + ":apply_rotary_emb_real");

        ModelCheckStep.Checked first = ModelCheckStep.check(ex, torch.bridge(), Presets.LLAMA_3_8B, List.of(raises), fp32, 0, Progress.NONE);
        assertTrue(first.nothingChecked(), first.now().table().printAll());
        assertEquals("failed", state(ex, Step.CORRECTNESS), "every row failed to run: " + ex.status().printAll());

        ModelCheckStep.Checked second = ModelCheckStep.check(ex, torch.bridge(), Presets.LLAMA_3_8B, List.of(real), fp32, 0, Progress.NONE);
        assertFalse(second.nothingChecked());
        assertEquals(List.of("raises"), second.kept());
        assertTrue(second.merge().contains("kept the earlier rows of [raises]"), second.merge());
        CorrectnessResult step = ModelCheckStep.load(ex);
        assertEquals(first.now().rows().size() + second.now().rows().size(), step.rows().size(), step.table().printAll());
        assertEquals("done", state(ex, Step.CORRECTNESS));
        assertTrue(step.summary().startsWith(step.rows().size() + " outputs and gradients of 2 candidates checked; FAIL: [llama3.py:build raises fp32"), step.summary());
        assertTrue(second.now().summary().contains("of 1 candidate checked, all ok"), second.now().summary());

        ModelCheckStep.Checked third = ModelCheckStep.check(ex, torch.bridge(), Presets.LLAMA_3_8B, List.of(real), fp32, 0, Progress.NONE);
        assertEquals(List.of("raises"), third.kept());
        assertEquals(List.of("real"), third.replaced());
        assertTrue(third.merge().contains("replaced the earlier rows of [real]"), third.merge());
        assertEquals(step.rows().size(), ModelCheckStep.load(ex).rows().size(), "real's rows replaced, not added twice");
        assertTrue(Files.readString(ex.file(Step.CORRECTNESS, ModelCheckStep.SUMMARY)).contains("the rows of [raises] are from earlier checks"));
    }

    static String state(ExperimentFolder ex, Step step) {
        var t = ex.status();
        for (int i = 0; i < t.rowCount(); i++) if (t.stringColumn("step").get(i).equals(step.notebook())) return t.stringColumn("state").get(i);
        throw new AssertionError(step + " not in " + t.printAll());
    }

    @Test void aRegionSetFixCompiledByInductorPasses(@TempDir Path root) {
        ExperimentFolder ex = planned(root);
        CorrectnessResult r = ModelCheckStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, List.of(ModelFix.parse("rope=regions:model.Attention.rope")),
                List.of(DType.FP32), 0, Progress.NONE);
        assertTrue(r.passed(), r.table().printAll());
        assertTrue(r.rows().size() > 20, "every output and gradient: " + r.rows().size());
    }
}
