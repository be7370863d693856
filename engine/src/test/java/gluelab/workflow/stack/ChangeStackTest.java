package gluelab.workflow.stack;

import gluelab.model.RegionReach;
import gluelab.ops.Replay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ChangeStackTest {
    @Test
    void biggestImpactFirstByShareOfTheLayerSaved() {
        ChangeStack s = StackSamples.stack();
        // q-norm-rope saves 30% of 6% of the layer, router-glue 6% of 2%: q-norm-rope leads though added last.
        assertEquals(List.of("q-norm-rope", "router-glue"), s.changes().stream().map(Change::id).toList());
        assertEquals(1, s.position("q-norm-rope"));
        assertEquals(0.06 * (1 - 1044.0 / 1497), s.change("q-norm-rope").layerSaved(), 1e-12);
        assertTrue(s.orderedBy().contains("share of the layer"), s.orderedBy());
    }

    @Test
    void withoutSharesTheTotalTimeSavedOrders() {
        Change small = Change.builder("a", "small").kind(FixKind.REWRITE).variant("v").commit("c").scope(Scope.specs(List.of("m")))
                .delta(2048, Replay.DIRECT, 100, 90).delta(4096, Replay.DIRECT, 200, 180).problem("p1", "p2", "p3")
                .solution("s1", "s2", "s3").unchanged("u").testPlan("t").code("m.py", "f", "rewritten").build();
        Change big = Change.builder("b", "big").kind(FixKind.REWRITE).variant("v").commit("c").scope(Scope.specs(List.of("m")))
                .delta(4096, Replay.DIRECT, 200, 150).delta(4096, Replay.GRAPH, 150, 149).layerShare(0.5).problem("p1", "p2", "p3")
                .solution("s1", "s2", "s3").unchanged("u").testPlan("t").code("m.py", "f", "rewritten").build();
        ChangeStack s = ChangeStack.empty(StackSamples.CONDITIONS).with(small).with(big);
        // one change lacks a share: order by time saved over direct rows (50 vs 30 us)
        assertEquals(List.of("b", "a"), s.changes().stream().map(Change::id).toList());
        assertTrue(s.orderedBy().startsWith("time saved"));
        assertEquals(4096, big.headline().tokens());
        assertEquals(Replay.DIRECT, big.headline().replay());
    }

    @Test
    void replacingAChangeKeepsOneEntry() {
        ChangeStack s = StackSamples.stack().with(StackSamples.qNormRope());
        assertEquals(2, s.changes().size());
    }

    @Test
    void savedAndLoadedStacksAreEqual(@TempDir Path dir) {
        ChangeStack s = StackSamples.stack();
        Path f = dir.resolve("exp/stack.json");
        s.save(f);
        assertEquals(s, ChangeStack.load(f));
        assertEquals(s, ChangeStack.loadOr(f, StackSamples.CONDITIONS));
        assertEquals(ChangeStack.empty(StackSamples.CONDITIONS), ChangeStack.loadOr(dir.resolve("none.json"), StackSamples.CONDITIONS));
        try (var files = Files.list(f.getParent())) {
            assertEquals(List.of(f), files.toList(), "no temp file is left beside the stack");
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aBrokenFileNamesTheFileAndTheField(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("stack.json");
        StackSamples.stack().save(f);
        String good = Files.readString(f);
        Files.writeString(f, good.replaceFirst("\"before\" : 1497\\.0", "\"before\" : -5"));
        var e = assertThrows(IllegalArgumentException.class, () -> ChangeStack.load(f));
        assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("changes[0].deltas[1]"), e.getMessage());
        assertTrue(e.getMessage().contains("finite number of us >= 0, got -5"), e.getMessage());

        Files.writeString(f, good.replaceFirst("\"commit\" : \"a1b2c3d\",", ""));
        e = assertThrows(IllegalArgumentException.class, () -> ChangeStack.load(f));
        assertTrue(e.getMessage().contains("field \"stack.changes[0]\"") && e.getMessage().contains("commit is missing"), e.getMessage());

        Files.writeString(f, good.replace("\"format\" : 1", "\"format\" : 9"));
        e = assertThrows(IllegalArgumentException.class, () -> ChangeStack.load(f));
        assertTrue(e.getMessage().contains("\"format\" is 9"), e.getMessage());

        Files.writeString(f, "{\"format\": 1, \"stack\": ");
        e = assertThrows(IllegalArgumentException.class, () -> ChangeStack.load(f));
        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("line"), e.getMessage());
    }

    /** An after of 0 read as infinitely faster, and 32768.7 tokens as 32768 (issue 23's probe). */
    @Test
    void anAfterOfZeroAndFractionalTokensAreRefused(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("stack.json");
        StackSamples.stack().save(f);
        String good = Files.readString(f);
        java.util.regex.Matcher after = java.util.regex.Pattern.compile("\"after\" : [0-9.]+").matcher(good);
        assertTrue(after.find(), good);
        Files.writeString(f, good.substring(0, after.start()) + "\"after\" : 0" + good.substring(after.end()));
        var e = assertThrows(IllegalArgumentException.class, () -> ChangeStack.load(f));
        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("after must be > 0 us"), e.getMessage());
        java.util.regex.Matcher tokens = java.util.regex.Pattern.compile("\"tokens\" : [0-9]+").matcher(good);
        assertTrue(tokens.find(), good);
        Files.writeString(f, good.substring(0, tokens.start()) + "\"tokens\" : 32768.7" + good.substring(tokens.end()));
        e = assertThrows(IllegalArgumentException.class, () -> ChangeStack.load(f));
        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("tokens"), e.getMessage());
    }

    @Test
    void problemAndSolutionHoldThreeToFiveFacts() {
        var e = assertThrows(IllegalArgumentException.class, () -> Change.builder("x", "t").kind(FixKind.REWRITE).variant("v").commit("c")
                .scope(Scope.specs(List.of("m"))).delta(1024, Replay.DIRECT, 2, 1).problem("one", "two").solution("s1", "s2", "s3")
                .unchanged("u").testPlan("t").build());
        assertTrue(e.getMessage().contains("change 'x': problem needs 3 to 5 facts"), e.getMessage());
    }

    @Test
    void deltasSayDirectionWithBothNumbers() {
        assertEquals("2.74x slower (1089 vs 2987 us)", Delta.of(4096, Replay.DIRECT, 1089, 2987).direction());
        assertEquals("240.1 -> 75.1 ms (-68.7%, 3.20x faster)", Delta.of(16384, Replay.DIRECT, 240_100, 75_100).describe());
        assertEquals("16k tokens, graph replay", Delta.of(16384, Replay.GRAPH, 2, 1).workload());
    }

    @Test
    void aRegionReachesEverySpecThatExtendsTheOneEnablingIt() {
        Scope s = Scope.of(StackSamples.specs(), "q_norm_rope");
        assertEquals(List.of(new RegionReach("dsv3-ours", "dsv3-ours"), new RegionReach("kimi-k2", "dsv3-ours")), s.specs());
        assertEquals("region q_norm_rope: kimi-k2 (inherits it from dsv3-ours)", s.lines().get(1));
        assertEquals(List.of(new RegionReach("kimi-k2", "dsv3-ours")), Scope.of(StackSamples.specs(), "q_norm_rope", "kimi-k2").specs());
        assertTrue(Scope.of(StackSamples.specs(), "nowhere").isEmpty());
    }
}
