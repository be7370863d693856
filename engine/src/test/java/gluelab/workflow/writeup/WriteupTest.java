package gluelab.workflow.writeup;

import gluelab.workflow.feedback.SkillFeedback;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.StackSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class WriteupTest {
    /** A change like the router glue's with one headline delta. */
    private static Change timed(String id, double beforeUs, double afterUs) {
        return Change.builder(id, "Compile " + id + " as one region")
                .kind(gluelab.workflow.stack.FixKind.ENABLE_REGION).variant("region " + id + ", fused").region("router_glue")
                .delta(16384, gluelab.ops.Replay.DIRECT, beforeUs, afterUs).layerShare(0.02)
                .correctness("eager bf16", 0, 0, true)
                .graphs(7, 8).commit("d4e5f6a")
                .scope(gluelab.workflow.stack.Scope.specs(List.of("dsv3-ours")))
                .problem("One.", "Two.", "Three.")
                .solution("One.", "Two.", "Three.")
                .unchanged("the rest")
                .testPlan("correctness vs eager bf16")
                .code("model.py", "Block.forward", "compiled as region " + id)
                .build();
    }

    /** `model stack` printed the changes and what was not tested, but not a rejected idea (a wrong fix): stack.json alone had it. */
    @Test
    void theStacksTextNamesEveryRejectedIdeaAndWhatWasNotTested() {
        String text = StackSummary.text(StackSamples.stack());
        assertTrue(text.startsWith(StackSummary.block(StackSamples.stack(), null).stripTrailing()), text);
        assertTrue(text.endsWith("\nrejected: per-site RMSNorm regions: host time 330 vs 141 us per norm at 4k tokens\nnot tested: 32k tokens"), text);
        assertTrue(StackSummary.text(ChangeStack.empty(StackSamples.CONDITIONS)).endsWith("\nno change: step 07 measured no fix"));
    }

    @Test
    void theStackSummaryWritesEveryLineInOneUnit() {
        ChangeStack stack = ChangeStack.empty(StackSamples.CONDITIONS).with(timed("big", 157_200, 12_400)).with(timed("small", 9_745, 1_216));
        String block = StackSummary.block(stack, null);
        assertTrue(block.contains("157.2 -> 12.4 ms"), block);
        assertTrue(block.contains("9.75 -> 1.22 ms"), block);
        assertFalse(block.contains(" us "), block);
        assertFalse(block.contains("9745"), block);
    }

    @Test
    void findingsPrTextsAndFeedbackLandInTheExperimentFolder(@TempDir Path dir) throws Exception {
        ChangeStack stack = StackSamples.stack();
        var feedback = SkillFeedback.collect(List.of(), stack, List.of(), List.of());
        Writeup.Written w = Writeup.write(dir, stack, null, feedback);
        assertEquals(List.of(), w.violations());
        assertEquals(dir.resolve("findings.md"), w.findings());
        assertEquals(dir.resolve("feedback.md"), w.feedback());
        String md = Files.readString(w.findings());
        // the stack summary is the top block, the same lines every PR repeats
        String summary = StackSummary.block(stack, null);
        assertTrue(md.startsWith("# Findings: dsv3-ours on NVIDIA H200\n\n## Stack summary\n\n" + summary), md);
        assertTrue(Files.readString(w.prs().getFirst()).contains(StackSummary.block(stack, "q-norm-rope")));
        for (String s : List.of("## What was measured", "## The stack", "### 1. Fuse q norm and RoPE into one region (`q-norm-rope`)",
                "16k tokens, graph replay: 1402 -> 1021 us", "- PR text: [pr/q-norm-rope.md](pr/q-norm-rope.md)",
                "![q-norm-rope: before vs after](pr/q-norm-rope.png)",
                "## Rejected ideas\n\n- per-site RMSNorm regions: host time 330 vs 141 us per norm at 4k tokens\n- a global cat-lowering option: 1.31x slower (1044 vs 1368 us at 16k) (instead of q-norm-rope)",
                "## Not tested\n\n- 32k tokens\n", "router-glue: CUDA-graph replay of the whole fwd+bwd",
                "## Feedback\n\n- negative result: per-site RMSNorm regions did not pay off"))
            assertTrue(md.contains(s), s + " missing in\n" + md);
        assertTrue(Files.readString(w.feedback()).startsWith("# Skill feedback"));
        assertTrue(Files.exists(dir.resolve("pr/q-norm-rope.png")), "the chart the findings doc links is there");
    }

    @Test
    void aStackWithNoChangeWritesNoPrAndSaysWhyInItsPlace(@TempDir Path dir) {
        Writeup.Written none = Writeup.write(dir, ChangeStack.empty(StackSamples.CONDITIONS), null, List.of());
        assertEquals(List.of(), none.prs());
        assertEquals(Writeup.Written.NO_PR, none.firstPr(), "notebook 10 shows the reason, not a NoSuchElementException");
        Writeup.Written some = Writeup.write(dir.resolve("some"), StackSamples.stack(), null, List.of());
        assertEquals(gluelab.report.ShownFile.of(some.prs().getFirst()), some.firstPr());
    }

    @Test
    void whatWasMeasuredComesFromTheRunsRecordAsItsOwnFindingsPrintIt() {
        // a record the H200 wrote (demo run): device, calibration, timing and commit, the lines report.Findings prints
        var record = gluelab.record.RecordStore.load(Path.of("src/test/resources/records/h200-demo"));
        String md = FindingsDoc.markdown(StackSamples.stack(), record, List.of(), null);
        String measured = md.substring(md.indexOf("## What was measured"), md.indexOf("## The stack"));
        for (String line : gluelab.report.Findings.measured(record)) assertTrue(measured.contains("- " + line + "\n"), line + " missing in\n" + measured);
        assertTrue(measured.contains("- device: NVIDIA H200"), measured);
        assertTrue(measured.contains("- timing: "), measured);
        assertFalse(md.contains("PR text:"), "no links without a PR folder");
        // what the run itself did not measure joins the stack's not-tested list
        for (String line : gluelab.report.Findings.notTested(record)) assertTrue(md.contains("- " + line + "\n"), line);
    }

    @Test
    void aStackEntryWhosePrWouldBreakARuleStopsTheStepBeforeAnyWrite(@TempDir Path dir) {
        Change bad = Change.builder("slow-talk", "A change described with a vague speed").kind(gluelab.workflow.stack.FixKind.REWRITE).variant("v").commit("c")
                .scope(gluelab.workflow.stack.Scope.specs(List.of("dsv3-ours"))).delta(4096, gluelab.ops.Replay.DIRECT, 200, 150)
                .problem("The old form is slower.", "p2", "p3").solution("s1", "s2", "s3").unchanged("the numerics").testPlan("t").code("model.py", "rope", "rewritten").build();
        ChangeStack stack = StackSamples.stack().with(bad);
        var e = assertThrows(IllegalArgumentException.class, () -> Writeup.write(dir, stack, null, List.of()));
        assertTrue(e.getMessage().contains("pr/slow-talk.md:7: [direction]"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("findings.md")));
        assertFalse(Files.exists(dir.resolve("pr")));
    }
}
