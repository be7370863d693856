package gluelab.workflow.feedback;

import gluelab.devlog.Devlog;
import gluelab.ops.Replay;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.GraphCount;
import gluelab.workflow.stack.StackSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SkillFeedbackTest {
    static List<FeedbackItem> of(List<FeedbackItem> items, FeedbackKind kind) { return items.stream().filter(i -> i.kind() == kind).toList(); }

    @Test
    void deadEndsFeedbackAndTaggedDecisionsComeFromTheDevlog(@TempDir Path dir) {
        Devlog log = new Devlog(dir.resolve("devlog.md"));
        log.deadEnd("per-site RMSNorm regions: host time 330 vs 141 us per norm at 4k");
        log.decision("try the fused norm first");
        log.decision("wrong advice: coordinate-descent tuning everywhere doubled cold compile");
        log.feedback("limit: a no_grad pass doubles the graphs of every region");
        log.measurement("rmsnorm fwd 146.6 us");
        List<FeedbackItem> items = SkillFeedback.collect(log.read(), null, List.of(), List.of());
        assertEquals(3, items.size(), items.toString());
        assertEquals("per-site RMSNorm regions: host time 330 vs 141 us per norm at 4k", of(items, FeedbackKind.NEGATIVE_RESULT).getFirst().proposal());
        assertEquals("coordinate-descent tuning everywhere doubled cold compile", of(items, FeedbackKind.WRONG_ADVICE).getFirst().proposal());
        assertEquals(1, of(items, FeedbackKind.COMPILE_LIMIT).size());
        assertTrue(items.getFirst().evidence().getFirst().startsWith("devlog 20"), items.getFirst().evidence().toString());
        assertTrue(items.getFirst().evidence().getFirst().contains("[dead_end]"), items.getFirst().evidence().toString());
    }

    @Test
    void aFixSlowerAloneAndFasterCombinedIsASurprise() {
        List<Interaction> table = List.of(
                Interaction.of(List.of(), 4096, 1000), Interaction.of(List.of("scale-narrow"), 4096, 1040),
                Interaction.of(List.of("gather-sum"), 4096, 800), Interaction.of(List.of("gather-sum", "scale-narrow"), 4096, 700),
                // at 16k both help alone and together: no surprise
                Interaction.of(List.of(), 16384, 4000), Interaction.of(List.of("scale-narrow"), 16384, 3900),
                Interaction.of(List.of("gather-sum"), 16384, 3000), Interaction.of(List.of("gather-sum", "scale-narrow"), 16384, 2900));
        List<FeedbackItem> items = SkillFeedback.collect(List.of(), null, table, List.of());
        assertEquals(1, items.size(), items.toString());
        FeedbackItem i = items.getFirst();
        assertEquals(FeedbackKind.EDGE_CASE, i.kind());
        assertEquals("scale-narrow is slower alone (1000 vs 1040 us) and faster combined with gather-sum (800.0 vs 700.0 us): try fixes together before rejecting one",
                i.proposal());
        assertEquals(List.of("4k tokens: baseline 1000 us, scale-narrow alone 1040 us", "4k tokens: gather-sum 800.0 us, gather-sum + scale-narrow 700.0 us"), i.evidence());
    }

    @Test
    void aWinThatDisappearsUnderGraphsIsHostTime() {
        var c = gluelab.workflow.stack.Change.builder("norm-regions", "Per-site norm regions").kind(gluelab.workflow.stack.FixKind.ENABLE_REGION).variant("v")
                .commit("c").scope(gluelab.workflow.stack.Scope.specs(List.of("m"))).delta(4096, Replay.DIRECT, 500, 400).delta(4096, Replay.GRAPH, 300, 295)
                .problem("p1", "p2", "p3").solution("s1", "s2", "s3").unchanged("u").testPlan("t").code("model.py", "norm", "compiled as a region").build();
        List<FeedbackItem> items = SkillFeedback.collect(List.of(), ChangeStack.empty(StackSamples.CONDITIONS).with(c), List.of(), List.of());
        assertEquals(1, items.size(), items.toString());
        assertTrue(items.getFirst().proposal().contains("mostly host time"), items.toString());
        assertEquals(List.of("direct launch 500.0 -> 400.0 us (-20.0%, 1.25x faster)", "graph replay 300.0 -> 295.0 us (-1.7%, 1.02x faster)"),
                items.getFirst().evidence());
    }

    /** Blind check: a direct delta inside its noise is no win, so there is none to disappear under graphs. */
    @Test
    void aDirectDeltaInsideItsNoiseIsNoHostTimeWin() {
        var c = gluelab.workflow.stack.Change.builder("norm-regions", "Per-site norm regions").kind(gluelab.workflow.stack.FixKind.ENABLE_REGION).variant("v")
                .commit("c").scope(gluelab.workflow.stack.Scope.specs(List.of("m")))
                .delta(gluelab.workflow.stack.Delta.of(4096, Replay.DIRECT, 500, 400).withCaveat(gluelab.timing.Noise.caveat(-0.2, 0.25)))
                .delta(4096, Replay.GRAPH, 300, 295)
                .problem("p1", "p2", "p3").solution("s1", "s2", "s3").unchanged("u").testPlan("t").code("model.py", "norm", "compiled as a region").build();
        assertEquals(List.of(), SkillFeedback.collect(List.of(), ChangeStack.empty(StackSamples.CONDITIONS).with(c), List.of(), List.of()));
    }

    @Test
    void graphsOverTheLimitOrTheAimAndRejectedIdeas(@TempDir Path dir) throws Exception {
        // the sample stack: router_glue at 7 of 8 (past the aim), one rejected idea
        List<FeedbackItem> items = SkillFeedback.collect(List.of(), StackSamples.stack(), List.of(), List.of(new GraphCount("moe_combine", 10, 8)));
        assertEquals(1, of(items, FeedbackKind.COMPILE_LIMIT).size(), items.toString());
        assertTrue(of(items, FeedbackKind.COMPILE_LIMIT).getFirst().proposal().startsWith("region moe_combine needs 10 graphs, over the recompile limit of 8"));
        assertTrue(of(items, FeedbackKind.EDGE_CASE).stream().anyMatch(i -> i.proposal().startsWith("region router_glue needs 7 of 8 graphs")), items.toString());
        assertEquals("per-site RMSNorm regions did not pay off", of(items, FeedbackKind.NEGATIVE_RESULT).getFirst().proposal());

        Path f = SkillFeedback.write(dir.resolve("feedback.md"), items);
        String md = Files.readString(f);
        assertTrue(md.contains("## New compile limits\n\n- [ ] region moe_combine needs 10 graphs"), md);
        assertTrue(md.contains("  - evidence: graphs moe_combine: 10 of limit 8 (aim <= 6), OVER THE LIMIT"), md);
    }
}
