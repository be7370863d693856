package gluelab.cli;

import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.floor.FlopPeak;
import gluelab.model.Presets;
import gluelab.ops.Replay;
import gluelab.progress.Progress;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelGraphs;
import gluelab.torch.ModelTree;
import gluelab.torch.PythonChoice;
import gluelab.torch.TorchPython;
import gluelab.torch.TorchSide;
import gluelab.workflow.confirm.ModelConfirmResult;
import gluelab.workflow.confirm.ModelConfirmation;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.*;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.CodeChange;
import gluelab.workflow.stack.Delta;
import gluelab.workflow.writeup.PrChecker;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Steps 09-11 on the shipped Llama-3 example at tiny dims with the real torch 2.13 CPU: steps 00-08
 * run through the engine (16 tokens, quick timing), then `gluelab model stack|findings|feedback`
 * write the stack, the findings doc and the PR text from them, with step 07's numbers and caveats,
 * the profile's source lines and the fix's files and functions; the PR text passes `gluelab pr check`,
 * and fails its rule `code` once the files and functions are edited out.
 */
@Tag("slow")
class ModelWriteupCliTest {
    static final Path EXAMPLES = Path.of("..", "docs", "examples", "models").toAbsolutePath().normalize();
    static final TimingConfig QUICK = new TimingConfig(Mode.COLD, 0.01, new StopRule(3, 0.001, 0.5, 1.0, 50), 1);

    /** Steps 00-08 of experiment {@code name} under {@code root}: the plan, the trees, the profile, the ranking, the fix, graphs, confirmation, correctness. */
    static ExperimentFolder stepsThroughCorrectness(Path root, String name, String fix) {
        TorchPython.useSharedInductorCache();
        PythonChoice python = TorchPython.withCompile();
        assumeTrue(python != null, TorchPython::whyNoCompile);
        ExperimentFolder ex = ExperimentFolder.open(name, root);
        var spec = Presets.LLAMA_3_8B;
        List<ModelFix> fixes = List.of(ModelFix.parse(fix));
        try (Device cpu = Devices.open("cpu")) {
            try (TorchSide torch = TorchSide.start(python, cpu)) {
                var bridge = torch.bridge();
                ModelPlan.write(ex, bridge, spec, new ModelSubject(EXAMPLES.resolve("llama3.py").toString(), "build", "x:T,64:fp32", "", List.of()),
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
        return ex;
    }

    @Test void theStackFindingsAndPrTextCarryTheModelsNumbersAndSourceLocations(@TempDir Path root) throws Exception {
        long t0 = System.nanoTime();
        ExperimentFolder ex = stepsThroughCorrectness(root, "llama-writeup", "rope=swap:model.apply_rotary_emb=" + EXAMPLES.resolve("rewrites.py") + ":apply_rotary_emb_real");
        long t1 = System.nanoTime();
        String r = root.toString();

        CliTest.Result stackRun = CliTest.run("model", "stack", "llama-writeup", "--experiments-root", r, "--commit", "abc1234");
        assertEquals(0, stackRun.code(), stackRun.toString());
        ChangeStack stack = ChangeStack.load(ex.stackFile());
        Change rope = stack.change("rope");
        ModelConfirmResult confirmed = ModelConfirmResult.load(ex.file(Step.CONFIRM, ModelConfirmation.FILE));
        ModelConfirmResult.Row row = confirmed.row("rope", 16, Replay.DIRECT).orElseThrow();
        Delta d = rope.delta(16, Replay.DIRECT);
        assertEquals(row.baselineUs(), d.before().us(), 1e-9);
        assertEquals(row.fixedUs(), d.after().us(), 1e-9);
        assertNull(rope.delta(16, Replay.GRAPH), "the CPU has no graph replay: no graph row is stated");
        if (!row.win()) assertTrue(d.caveat().contains("not a win in step 07"), "a row that is no win says so: " + d.caveat());
        if (!row.caveat().isEmpty()) assertTrue(d.caveat().contains(row.caveat()), d.caveat());
        assertEquals(List.of(new CodeChange("llama3.py", "apply_rotary_emb", 48, "replaced by `rewrites.py:apply_rotary_emb_real` (swap, bound before build runs)"),
                new CodeChange("rewrites.py", "apply_rotary_emb_real", 27, "the replacement")), rope.code());
        assertEquals(4, rope.correctness().size(), rope.correctness().toString());
        assertTrue(rope.correctness().stream().allMatch(v -> v.pass()), rope.correctness().toString());
        assertEquals("abc1234", rope.commit());
        assertEquals(3, stack.conditions().processes());
        assertTrue(rope.problem().getFirst().startsWith("Step 03 profiles `apply_rotary_emb (llama3.py:"), rope.problem().toString());
        assertNotNull(rope.layerShare(), "the share of the eager step from the profile");

        CliTest.Result findingsRun = CliTest.run("model", "findings", "llama-writeup", "--experiments-root", r);
        assertEquals(0, findingsRun.code(), findingsRun.toString());
        Path pr = ex.prDir().resolve("rope.md");
        String text = Files.readString(pr);
        assertTrue(text.contains("## Code\n\n- `llama3.py:apply_rotary_emb` (def at line 48): replaced by `rewrites.py:apply_rotary_emb_real`"), text);
        assertTrue(text.contains("- `rewrites.py:apply_rotary_emb_real` (def at line 27): the replacement"), text);
        assertTrue(text.contains("16 tokens: " + d.describe()), text);
        assertTrue(text.contains("correctness vs fp64 reference, fp32: rel L2"), text);
        assertTrue(Files.isRegularFile(ex.prDir().resolve("rope.png")));
        String findings = Files.readString(ex.findingsFile());
        for (String part : List.of("### Baselines (step 01)", "### Ranking per source line (step 04)", "apply_rotary_emb (llama3.py:", "### Fixes (step 05)",
                "### Graph budget (step 06)", "### Source lines of the changed functions (eager profile, step 03, 16 tokens)", "- rope, `apply_rotary_emb`: `apply_rotary_emb (llama3.py:", "### Confirmation in fresh processes (step 07)", "### Correctness (step 08)",
                "- code: `llama3.py:apply_rotary_emb` (def at line 48)", "16 tokens: " + d.describe(), "process 3 pid "))
            assertTrue(findings.contains(part), part + "\n" + findings);

        CliTest.Result check = CliTest.run("pr", "check", pr.toString());
        assertEquals(0, check.code(), check + "\n" + text);
        assertEquals(List.of(), PrChecker.check(pr, stack));
        Path edited = ex.prDir().resolve("rope-edited.md");
        Files.writeString(edited, text.replace("`llama3.py:apply_rotary_emb` (def at line 48)", "the RoPE function").replace("`rewrites.py:apply_rotary_emb_real` (def at line 27)", "its rewrite"));
        CliTest.Result bad = CliTest.run("pr", "check", edited.toString());
        assertEquals(1, bad.code(), bad.toString());
        assertTrue(bad.out().contains("[code] a Code item that names no file and function"), bad.out());

        CliTest.Result feedbackRun = CliTest.run("model", "feedback", "llama-writeup", "--experiments-root", r);
        assertEquals(0, feedbackRun.code(), feedbackRun.toString());
        assertTrue(Files.isRegularFile(ex.feedbackFile()));
        for (Step s : List.of(Step.STACK, Step.FINDINGS, Step.FEEDBACK)) assertTrue(ex.has(s), s.toString());
        System.err.printf("ModelWriteupCliTest: steps 00-08 %.1f s, steps 09-11 %.1f s%n", (t1 - t0) * 1e-9, (System.nanoTime() - t1) * 1e-9);
    }
}
