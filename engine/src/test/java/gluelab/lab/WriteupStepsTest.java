package gluelab.lab;

import gluelab.workflow.confirm.Comparison;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.expr.workbench.Examples;
import gluelab.ops.Replay;
import gluelab.workflow.stack.ChangeStack;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import gluelab.units.Bandwidth;
import gluelab.workflow.writeup.PrChecker;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Steps 09-11 read what steps 04-08 left: the change's numbers are the experiment's, the PR texts pass the rules. */
@Tag("slow")
class WriteupStepsTest {
    static final TimingConfig FAST = new TimingConfig(Mode.COLD, 0, new StopRule(3, 0, 0.5, 0.2, 20), 2);

    @Test
    void stackFindingsPrTextsAndFeedbackComeFromTheExperiment(@TempDir Path root) throws Exception {
        try (Gluelab lab = Gluelab.open("cpu").assumeBandwidth(Bandwidth.gbPerSecond(50), 1e11)) {
            ExperimentFolder ex = lab.experiment("story", root);
            lab.plan(ex, "llama-3-8b", 0.0001, "8,16");
            var noStack = assertThrows(IllegalStateException.class, () -> lab.writeup(ex));
            assertTrue(noStack.getMessage().contains("run 09-stack first"), noStack.getMessage());

            lab.bench("rmsnorm", "swiglu").forPlan(ex.plan()).passes("fwd", "bwd").timing(FAST).check(0).record(ex, Step.BASELINES);
            lab.rank(ex);
            lab.fix(ex).timing(FAST).region("rmsnorm", "rmsnorm region", g -> Examples.rmsnorm(g, "bf16")).record(ex);
            lab.graphBudget(ex).site("rmsnorm", "attention norm", g -> Examples.rmsnorm(g, "bf16")).record(ex);
            var notConfirmed = assertThrows(IllegalStateException.class, () -> lab.change(ex, "rmsnorm", "t", "c"));
            assertTrue(notConfirmed.getMessage().contains("run 07-confirm first"), notConfirmed.getMessage());
            var confirmed = lab.confirm(ex, lab.confirmJob(ex, List.of(Comparison.of("rmsnorm", 16, "eager", "fused")), FAST));
            lab.correctness(ex).tokens(8).op("rmsnorm", "fused").record(ex);

            var change = lab.change(ex, "rmsnorm", "Run RMSNorm as the fused kernel", "abc1234").build();
            var row = confirmed.rows().stream().filter(r -> r.replay() == Replay.DIRECT).findFirst().orElseThrow();
            assertEquals(row.baselineUs(), change.delta(16, Replay.DIRECT).before().us(), 1e-9, "before is step 07's confirmed baseline");
            assertEquals(row.candidateUs(), change.delta(16, Replay.DIRECT).after().us(), 1e-9);
            assertEquals(4, change.graphs().graphs(), "step 06: 2 token counts x 2 grad modes");
            assertTrue(change.correctness().stream().anyMatch(v -> v.against().equals("fp64 reference, bf16")), change.correctness().toString());
            assertTrue(change.rejected().stream().anyMatch(r -> r.idea().contains("rmsnorm region")), "step 05's region lost to the fused kernel or is listed");
            assertTrue(change.notTested().stream().anyMatch(s -> s.startsWith("8 tokens in fresh processes")), change.notTested().toString());

            ChangeStack stack = lab.commit(ex, change);
            assertEquals(stack, ChangeStack.load(ex.stackFile()));
            assertEquals(1, lab.commit(ex, change).changes().size(), "committing again replaces the entry");
            assertTrue(change.code().stream().allMatch(c -> c.file().equals("kernels/src/main/cuda/rmsnorm.cu") && c.function().startsWith("fused_rmsnorm_")),
                    "the PR names the catalogue's fused kernels: " + change.code());
            ChangeStack viaFacade = lab.changeStack(ex, "abc1234");
            if (row.win()) assertEquals("Run rmsnorm as one fused kernel", viaFacade.change("rmsnorm-fused").title(), "each confirmed win, titled as notebook 09 titles it");
            else assertEquals(stack, viaFacade, "no confirmed win: the stack stays as it was");

            var written = lab.writeup(ex);
            assertEquals(List.of(), written.violations());
            assertEquals(ex.findingsFile(), written.findings());
            Path pr = ex.prDir().resolve("rmsnorm-fused.md");
            assertEquals(List.of(), PrChecker.check(pr), Files.readString(pr));
            assertTrue(Files.isRegularFile(ex.prDir().resolve("rmsnorm-fused.png")));
            assertTrue(Files.readString(ex.findingsFile()).contains("rmsnorm"));

            var feedback = lab.skillFeedback(ex);
            assertTrue(Files.isRegularFile(ex.feedbackFile()));
            assertEquals(feedback.size(), feedback.size());
            for (Step s : Step.values()) if (s != Step.IDEAL_TIMES && s != Step.PROFILE_DIFF) assertTrue(ex.has(s), s.toString());
        }
    }

    /**
     * The story on a deliberately loaded CPU: spinning processes (twice the cores) run while steps
     * 01 and 07 measure, under a 0.5% noise bound. The confirmed numbers come out caveated, and the
     * findings doc, every PR text, its chart title and the stack summary carry the caveat; a PR text
     * with the caveat removed fails pr check.
     */
    @Test
    void onALoadedCpuTheFindingsAndPrTextsCarryTheCaveatAndPrCheckFailsWithoutIt(@TempDir Path root) throws Exception {
        TimingConfig strict = new TimingConfig(Mode.COLD, 0, new StopRule(10, 0, 0.005, 0.5, 40), 2);
        try (Gluelab lab = Gluelab.open("cpu").assumeBandwidth(Bandwidth.gbPerSecond(50), 1e11)) {
            ExperimentFolder ex = lab.experiment("loaded", root);
            lab.plan(ex, "llama-3-8b", 0.0001, "16");
            gluelab.workflow.confirm.ConfirmResult confirmed;
            int spinners;
            try (var load = new gluelab.calibrate.BusyMachine()) {
                spinners = load.size();
                lab.bench("rmsnorm").forPlan(ex.plan()).passes("fwd", "bwd").timing(strict).check(0).record(ex, Step.BASELINES);
                lab.rank(ex);
                confirmed = lab.confirm(ex, lab.confirmJob(ex, List.of(Comparison.of("rmsnorm", 16, "eager", "fused")), strict));
            }
            var change = lab.change(ex, "rmsnorm", "Run RMSNorm as the fused kernel", "abc1234").build();
            var delta = change.delta(16, Replay.DIRECT);
            assertTrue(delta.caveated(), "measured beside " + spinners + " spinning processes under a 0.5% bound: " + confirmed.summary());
            assertEquals(confirmed.caveat(confirmed.rows().stream().filter(r -> r.replay() == Replay.DIRECT).findFirst().orElseThrow()), delta.caveat());
            lab.commit(ex, change);
            var written = lab.writeup(ex);
            assertEquals(List.of(), written.violations());

            String quote = delta.describe();
            assertTrue(quote.contains("(caveat: " + delta.caveat() + ")") && quote.contains("~"), quote);
            String findings = Files.readString(ex.findingsFile());
            assertTrue(findings.contains(quote), "findings.md quotes the caveated numbers:\n" + findings);
            assertFalse(findings.replace(quote, "").contains(gluelab.units.Micros.pair(delta.before(), " -> ", delta.after())), "no uncaveated quote left");
            Path pr = ex.prDir().resolve("rmsnorm-fused.md");
            String text = Files.readString(pr);
            assertTrue(text.lines().filter(l -> l.startsWith("TLDR")).findFirst().orElseThrow().contains("caveat: "), text);
            ChangeStack stack = ChangeStack.load(ex.stackFile());
            assertEquals(List.of(), PrChecker.check(pr, stack));

            // A hand edit drops the caveat: pr check (as the CLI runs it, the stack found above the pr/ folder) fails.
            Files.writeString(pr, text.replace(" (caveat: " + delta.caveat() + ")", "").replace("~", ""));
            var out = new java.io.ByteArrayOutputStream();
            var saved = System.out;
            System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
            int code;
            try {
                code = new picocli.CommandLine(new gluelab.cli.PrCommand()).execute("check", pr.toString());
            } finally {
                System.setOut(saved);
            }
            assertEquals(1, code, out.toString());
            assertTrue(out.toString().contains("[evidence]"), out.toString());
        }
    }
}
