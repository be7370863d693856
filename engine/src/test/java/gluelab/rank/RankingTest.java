package gluelab.rank;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class RankingTest {
    @Test
    void bigShareBeatsBigRatio() {
        // workflow-facts step 4: a 3x gap on 1% of the layer matters less than 1.3x on 15%.
        double layer = 10_000;
        Candidate small = new Candidate("tiny3x", "fwd", "eager", 4096, 1, 100, 33.3, layer);
        Candidate big = new Candidate("big1_3x", "fwd", "eager", 4096, 1, 1500, 1153.8, layer);
        Ranking r = Ranking.of(List.of(small, big), 0.01);
        assertEquals("big1_3x", r.ranked().getFirst().op().name());
        assertEquals(346.2 * 0.15, big.score(), 1e-9);
    }

    @Test
    void stopRuleMarksSmallGapsAndStopsWhenTheTotalIsSmall() {
        double layer = 100_000;
        Candidate a = new Candidate("a", "fwd", "eager", 2048, 2, 600, 100, layer);   // gap 1000 = 1%
        Candidate b = new Candidate("b", "fwd", "eager", 2048, 1, 300, 200, layer);   // gap 100 = 0.1%
        Ranking r = Ranking.of(List.of(b, a), 0.01);
        assertEquals(List.of(a), r.worthFixing());
        assertFalse(r.stopReached());
        assertEquals("fix", r.table().stringColumn("verdict").get(0));
        assertEquals("below stop rule", r.table().stringColumn("verdict").get(1));
        Ranking loose = Ranking.of(List.of(b), 0.01);
        assertTrue(loose.stopReached());
    }

    @Test
    void aNoisyCandidateOverTheStopRuleIsRemeasureNotFix() {
        double layer = 100_000;
        Candidate sound = new Candidate("sound", "fwd", "eager", 2048, 2, 600, 100, layer);
        Candidate noisy = new Candidate(new Candidate("noisy", "fwd", "eager", 2048, 2, 900, 100, layer).key(), 2, 900, 100, layer, "n=1 < 10, noise unknown");
        Candidate small = new Candidate(new Candidate("small", "fwd", "eager", 2048, 1, 300, 200, layer).key(), 1, 300, 200, layer, "timeout");
        Ranking r = Ranking.of(List.of(sound, noisy, small), 0.01);
        assertEquals(Verdict.REMEASURE, r.verdict(noisy));
        assertEquals(Verdict.FIX, r.verdict(sound));
        assertEquals(Verdict.BELOW_STOP_RULE, r.verdict(small), "a small gap stays below the stop rule, noisy or not");
        assertEquals(List.of(sound), r.toFix());
        assertEquals(List.of(noisy), r.toRemeasure());
        assertEquals("remeasure (n=1 < 10, noise unknown)", r.table().stringColumn("verdict").get(0));
        assertEquals("fix", r.table().stringColumn("verdict").get(1));
    }

    @Test
    void countsMultiplyGapAndShare() {
        Candidate c = new Candidate("swiglu", "fwd", "eager", 1, 8, 10, 4, 1000);
        assertEquals(48, c.gapUs(), 1e-12);
        assertEquals(0.08, c.share(), 1e-12);
        assertEquals(2.5, c.ratio(), 1e-12);
    }

    @Test
    void badInputIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Candidate("x", "fwd", "eager", 1, 1, 0, 1, 10));
        assertThrows(IllegalArgumentException.class, () -> new Candidate("x", "fwd", "eager", 1, 0, 1, 1, 10));
        assertThrows(IllegalArgumentException.class, () -> Ranking.of(List.of(), 1.5));
    }
}
