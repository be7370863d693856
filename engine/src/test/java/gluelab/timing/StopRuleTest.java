package gluelab.timing;

import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

class StopRuleTest {
    /** Feeds a synthetic stream until the rule stops; returns the reason and the samples taken. */
    static Object[] feed(StopRule rule, java.util.function.IntToDoubleFunction stream, double overheadPerSample) {
        SampleStats stats = new SampleStats();
        double wall = 0;
        for (int i = 0; i < 10_000_000; i++) {
            double s = stream.applyAsDouble(i);
            stats.add(s);
            wall += s + overheadPerSample;
            Optional<StopRule.Reason> r = rule.check(stats, wall);
            if (r.isPresent()) return new Object[]{r.get(), stats.count()};
        }
        throw new AssertionError("never stopped");
    }

    @Test
    void steadySamplesConvergeAfterMinTimeAndCount() {
        // 1 ms samples with 0.1% noise: converges once 0.5 s of samples (500) is collected.
        Random rnd = new Random(1);
        Object[] r = feed(StopRule.nvbench(), i -> 1e-3 * (1 + 0.001 * rnd.nextGaussian()), 0);
        assertEquals(StopRule.Reason.CONVERGED, r[0]);
        assertEquals(500L, (long) r[1], 1);
    }

    @Test
    void slowSamplesNeedAtLeastMinSamples() {
        // 0.2 s samples with no noise: 10 samples are needed even though 0.5 s is passed at 3.
        Object[] r = feed(StopRule.nvbench(), i -> 0.2, 0);
        assertEquals(StopRule.Reason.CONVERGED, r[0]);
        assertEquals(10L, r[1]);
    }

    @Test
    void noisySamplesStopAtTheTimeout() {
        Random rnd = new Random(2);
        StopRule rule = new StopRule(10, 0.5, 0.005, 2.0, 1_000_000);
        Object[] r = feed(rule, i -> 1e-3 * (1 + 0.2 * rnd.nextGaussian()), 1e-3);
        assertEquals(StopRule.Reason.TIMEOUT, r[0]);
        // 2 ms of wall per sample: the 2 s timeout is reached at about 1000 samples.
        assertEquals(1000L, (long) r[1], 2);
    }

    @Test
    void maxSamplesCapsTheRun() {
        Random rnd = new Random(3);
        StopRule rule = new StopRule(5, 0, 1e-9, 1e9, 50);
        assertEquals(StopRule.Reason.MAX_SAMPLES, feed(rule, i -> 1 + rnd.nextDouble(), 0)[0]);
    }

    @Test
    void anOutlierBurstDelaysConvergence() {
        // A foreign job doubles 20 samples in the middle: the rule waits until the noise is diluted.
        Object[] clean = feed(StopRule.nvbench(), i -> 1e-3, 0);
        Object[] burst = feed(StopRule.nvbench(), i -> i >= 100 && i < 120 ? 2e-3 : 1e-3, 0);
        assertTrue((long) burst[1] > (long) clean[1], "burst " + burst[1] + " vs clean " + clean[1]);
    }

    @Test
    void badRulesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new StopRule(0, 0.5, 0.01, 1, 10));
        assertThrows(IllegalArgumentException.class, () -> new StopRule(10, 0.5, 0, 1, 10));
        assertThrows(IllegalArgumentException.class, () -> new StopRule(10, 0.5, 0.01, 1, 5));
    }

    @Test
    void summaryPercentilesInterpolate() {
        Summary s = Summary.of(new double[]{5, 1, 4, 2, 3});
        assertEquals(1, s.min());
        assertEquals(3, s.median());
        assertEquals(3, s.mean(), 1e-12);
        assertEquals(1.8, s.p20(), 1e-12);
        assertEquals(4.2, s.p80(), 1e-12);
        assertEquals(5, s.max());
        assertEquals(Math.sqrt(2.5) / 3, s.relStdev(), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> Summary.of(new double[0]));
    }
}
