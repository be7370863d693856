package gluelab.writeup;

import gluelab.feedback.SkillFeedback;
import gluelab.stack.Change;
import gluelab.stack.ChangeStack;
import gluelab.stack.StackSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class WriteupTest {
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
                "## Rejected ideas\n\n- per-site RMSNorm regions: host time 330 vs 141 us per norm at 4k tokens\n- two regions, norm and RoPE apart",
                "## Not tested\n\n- 32k tokens\n", "router-glue: CUDA-graph replay of the whole fwd+bwd",
                "## Feedback\n\n- negative result: per-site RMSNorm regions did not pay off"))
            assertTrue(md.contains(s), s + " missing in\n" + md);
        assertTrue(Files.readString(w.feedback()).startsWith("# Skill feedback"));
    }

    @Test
    void aStackEntryWhosePrWouldBreakARuleStopsTheStepBeforeAnyWrite(@TempDir Path dir) {
        Change bad = Change.builder("slow-talk", "A change described with a vague speed").kind(gluelab.stack.FixKind.REWRITE).variant("v").commit("c")
                .scope(gluelab.stack.Scope.specs(List.of("dsv3-ours"))).delta(4096, gluelab.ops.Replay.DIRECT, 200, 150)
                .problem("The old form is slower.", "p2", "p3").solution("s1", "s2", "s3").unchanged("the numerics").testPlan("t").build();
        ChangeStack stack = StackSamples.stack().with(bad);
        var e = assertThrows(IllegalArgumentException.class, () -> Writeup.write(dir, stack, null, List.of()));
        assertTrue(e.getMessage().contains("pr/slow-talk.md:7: [direction]"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("findings.md")));
        assertFalse(Files.exists(dir.resolve("pr")));
    }
}
