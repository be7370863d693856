package gluelab.workflow.modelwriteup;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.Presets;
import gluelab.progress.Progress;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.confirm.ModelConfirmation;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.FeedbackKind;
import gluelab.workflow.feedback.SkillFeedback;
import gluelab.workflow.model.ModelCheckStep;
import gluelab.workflow.model.ModelFixStep;
import gluelab.workflow.model.ModelPlan;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.writeup.PrChecker;
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
 * Steps 09-11 on the shipped Llama-3 example at tiny dims with the real torch 2.13 CPU, where a blind check found them
 * wrong: step 05 screens three fixes (the real-arithmetic RoPE compiled as a region, the same RoPE behind a 20 ms sleep,
 * a RoPE whose angle is 0.1% off), step 07 times them in one fresh process (the CPU has no graph replay), step 08 checks
 * them and one more fix that nothing timed, and step 06 does not run. One experiment serves every test here.
 */
@Tag("slow")
class ModelWriteupTest {
    static final Path EXAMPLES = ModelChangesTest.MODELS;
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 1.0, 50), 1);
    static final String MINE = """
            import time
            from rewrites import apply_rotary_emb_real, cos_sin, rotate_real


            def apply_rotary_emb_off(xq, xk, freqs_cis):
                cos, sin = cos_sin(freqs_cis, xq.shape[1])
                return rotate_real(xq, cos * 1.001, sin), rotate_real(xk, cos * 1.001, sin)


            def apply_rotary_emb_slow(xq, xk, freqs_cis):
                time.sleep(0.02)
                return apply_rotary_emb_real(xq, xk, freqs_cis)
            """;
    @TempDir static Path root;
    static ExperimentFolder ex;
    static ChangeStack stack;
    static List<FeedbackItem> feedback;

    @BeforeAll static void runTheStepsWithoutStep06() throws Exception {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        Files.writeString(root.resolve("mine.py"), MINE);
        Files.copy(EXAMPLES.resolve("rewrites.py"), root.resolve("rewrites.py"));
        String rewrites = root.resolve("rewrites.py").toString(), mine = root.resolve("mine.py").toString();
        List<ModelFix> timed = List.of(ModelFix.parse("rope=swap:model.apply_rotary_emb=" + rewrites + ":apply_rotary_emb_real+regions:model.apply_rotary_emb"),
                ModelFix.parse("slow=swap:model.apply_rotary_emb=" + mine + ":apply_rotary_emb_slow"),
                ModelFix.parse("off=swap:model.apply_rotary_emb=" + mine + ":apply_rotary_emb_off"));
        ModelFix checkedOnly = ModelFix.parse("real=swap:model.apply_rotary_emb=" + rewrites + ":apply_rotary_emb_real");
        ex = ExperimentFolder.open("llama", root.resolve("experiments"));
        long t0 = System.nanoTime();
        try (Device cpu = Devices.open("cpu")) {
            try (TorchSide torch = TorchSide.start(python, cpu)) {
                ModelPlan.write(ex, torch.bridge(), Presets.LLAMA_3_8B, new ModelSubject(EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "",
                        List.of()), List.of(16L), 0.05, "cpu");
                ModelFixStep.run(ex, cpu, torch.bridge(), Presets.LLAMA_3_8B, timed, null, QUICK, 0, Progress.NONE);
                new ModelConfirmation(cpu, python).processes(1).run(ex, Presets.LLAMA_3_8B, ModelFixStep.load(ex), timed, QUICK);
                ModelCheckStep.run(ex, torch.bridge(), Presets.LLAMA_3_8B, List.of(timed.get(0), timed.get(1), timed.get(2), checkedOnly),
                        ModelCheckStep.DTYPES, 0, Progress.NONE);
            }
        }
        stack = ModelWriteup.stack(ex, "cpu", Presets.LLAMA_3_8B, "abc1234");
        ModelWriteup.findings(ex);
        feedback = ModelWriteup.feedback(ex);
        System.out.printf("ModelWriteupTest: steps 00, 05, 07 (one process), 08 and 09-11 ran in %.0f s%n", (System.nanoTime() - t0) * 1e-9);
    }

    static String pr(String id) throws Exception { return Files.readString(ex.prDir().resolve(id + ".md")); }

    static String section(String text, String header) {
        int from = text.indexOf("## " + header + "\n");
        assertTrue(from >= 0, header + " in:\n" + text);
        int to = text.indexOf("\n## ", from + 1);
        return text.substring(from, to < 0 ? text.length() : to);
    }

    /** Blind check: "graphs: no compiled region, limit does not apply" under a Code section that compiles apply_rotary_emb. */
    @Test void aRegionWhoseGraphsStep06DidNotCountSaysSoAndOnlyAFixWithoutOneHasNoRegion() throws Exception {
        String rope = pr("rope"), slow = pr("slow");
        assertTrue(rope.contains("compiled on its own as a torch.compile region"), rope);
        assertTrue(section(rope, "Results").contains("\ngraphs apply_rotary_emb: not measured, limit not checked (step 06 not run)\n"), rope);
        assertFalse(rope.contains("no compiled region"), rope);
        assertTrue(section(slow, "Results").contains("\ngraphs: no compiled region, limit does not apply\n"), "a swap compiles nothing: " + slow);
        for (String id : List.of("rope", "slow")) {
            assertEquals(List.of(), PrChecker.check(ex.prDir().resolve(id + ".md"), stack), id);
            assertEquals(0, gluelab.cli.Main.commandLine().execute("pr", "check", ex.prDir().resolve(id + ".md").toString()), "gluelab pr check " + id + ".md");
        }
    }

    /** Blind check: on the CPU the Test plan named CUDA-graph replay rows, which the CPU cannot measure. */
    @Test void theTestPlanNamesOnlyWhatWasMeasuredOnTheCpu() throws Exception {
        Change rope = stack.change("rope");
        assertEquals(List.of("screened against the model as written in one process at 16 tokens (step 05, gluelab model fix)",
                "timed against the model as written in 1 fresh process at 16 tokens, normal launch (step 07, gluelab model confirm)",
                "checked every output and gradient vs eager and fp64 in bf16 and fp32, and a second step vs the first (step 08, gluelab model check)"),
                rope.testPlan());
        String plan = section(pr("rope"), "Test plan");
        assertFalse(plan.contains("graph replay") || plan.contains("CUDA"), plan);
        assertTrue(section(pr("rope"), "Not tested").contains("CUDA-graph replay of the whole fwd+bwd"), "what was not measured is named there");
    }

    /** Blind check: one feedback item per failing gradient row of one bad fix, and no item for a fix of no win. */
    @Test void aWrongFixIsOneFeedbackItemAndAFixOfNoWinIsANegativeResult() {
        List<FeedbackItem> off = feedback.stream().filter(i -> i.kind() == FeedbackKind.NEGATIVE_RESULT && i.proposal().startsWith("fix off ")).toList();
        assertEquals(1, off.size(), SkillFeedback.markdown(feedback));
        String item = off.getFirst().proposal() + " " + off.getFirst().evidence();
        assertTrue(item.matches("(?s).*fix off \\(swap, wrong in step 08\\).*\\d+ of its \\d+ rows in step 08 fail \\(fp32\\); worst fp32 grad layers\\.\\d\\..*FAIL \\(rel L2.*"), item);
        assertTrue(off.getFirst().proposal().matches("fix off \\(swap, wrong in step 08\\) failed correctness: \\d+ of its \\d+ rows in step 08 fail \\(fp32\\); "
                + "worst fp32 grad layers\\.\\d\\.\\S+: FAIL \\(rel L2.*"), "a wrong fix failed correctness (which check, which tensor): " + off.getFirst().proposal());
        assertFalse(SkillFeedback.markdown(feedback).contains("did not pay off"), "no fix here was measured and dropped for its time: " + SkillFeedback.markdown(feedback));
        assertFalse(feedback.stream().anyMatch(i -> i.proposal().startsWith("correctness: ")), "no item per row: " + SkillFeedback.markdown(feedback));

        Change slow = stack.change("slow");
        assertTrue(slow.title().startsWith(ModelChanges.NOT_RECOMMENDED), "20 ms of sleep per call is no win: " + slow.title());
        List<FeedbackItem> noWin = feedback.stream().filter(i -> i.kind() == FeedbackKind.NEGATIVE_RESULT && i.proposal().startsWith("change slow (")).toList();
        assertEquals(1, noWin.size(), SkillFeedback.markdown(feedback));
        assertTrue(noWin.getFirst().proposal().endsWith("is no win in step 07 at any token count"), noWin.getFirst().proposal());
        assertTrue(noWin.getFirst().evidence().getFirst().startsWith("step 07, 16 tokens: ") && noWin.getFirst().evidence().getFirst().contains("caveat: "),
                "its numbers with their caveat: " + noWin.getFirst().evidence());
    }

    /** Blind check: a fix slower than the model as written in step 05 (20 ms of sleep per call) was no feedback item of its own. */
    @Test void aFixSlowerInStep05IsOneItemNamingTheStepTheRowAndTheFigure() {
        List<FeedbackItem> slower = feedback.stream().filter(i -> i.proposal().startsWith("step 05: fix slow (swap) is slower than the model as written at 16 tokens, ")).toList();
        var row = ModelFixStep.load(ex).rows().stream().filter(r -> r.fix().equals("slow") && r.tokens() == 16).findFirst().orElseThrow();
        // A machine loaded past the sleep's size (timings at 400% noise were seen on a shared 2-core host) makes the row
        // inconclusive: then no item may say it was slower. Otherwise exactly one does.
        if (row.caveat().contains(gluelab.workflow.model.ModelFixResult.WITHIN_NOISE)) {
            assertEquals(List.of(), slower, "a slowdown inside its noise is no feedback item: " + row);
            return;
        }
        assertEquals(1, slower.size(), SkillFeedback.markdown(feedback));
        assertTrue(slower.getFirst().proposal().matches(".*, \\d+\\.\\d\\dx slower \\(\\d+\\.\\d vs \\d+\\.\\d us\\).*"), slower.getFirst().proposal());
        assertTrue(slower.getFirst().evidence().getFirst().matches("step 05, row slow @ 16 tokens: \\d+\\.\\d us vs baseline \\d+\\.\\d us, \\+\\d+\\.\\d%, .*"),
                slower.getFirst().evidence().toString());
    }

    /** Blind check: a fix that failed step 08, and one only step 08 checked, were in none of the findings' lists. */
    @Test void everyFixLandsInExactlyOneCategoryWithItsReason() throws Exception {
        for (String fix : List.of("rope", "slow", "off", "real")) {
            long changes = stack.changes().stream().filter(c -> c.id().equals(fix)).count();
            long rejected = stack.rejected().stream().filter(r -> r.idea().startsWith("fix " + fix + " ")).count();
            long notTested = stack.notTested().stream().filter(n -> n.startsWith("fix " + fix + ":")).count();
            assertEquals(1, changes + rejected + notTested, fix + ": " + stack.changes().stream().map(Change::id).toList() + " " + stack.rejected() + " " + stack.notTested());
        }
        assertEquals(List.of("rope", "slow"), stack.changes().stream().map(Change::id).sorted().toList());
        assertFalse(Files.exists(ex.prDir().resolve("off.md")), "a wrong fix gets no PR text");

        String findings = Files.readString(ex.findingsFile());
        String rejected = section(findings, "Rejected ideas"), notTested = section(findings, "Not tested");
        assertTrue(rejected.matches("(?s).*\n- fix off \\(swap, wrong in step 08\\): \\d+ of its \\d+ rows in step 08 fail \\(fp32\\); worst .*"
                + "; step 07 at 16 tokens, normal launch: .*\\(caveat: .*"), "the reason, and step 07's numbers kept with their caveat: " + rejected);
        assertTrue(notTested.matches("(?s).*\n- fix real: step 08 checked it \\(its \\d+ rows pass\\), but neither step 05 nor step 07 timed it\n.*"), notTested);
        assertFalse(section(findings, "The stack").contains("`off`"), findings);
    }
}
