package gluelab.timing;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.IntToDoubleFunction;

import static org.junit.jupiter.api.Assertions.*;

/** The warm-up rule on synthetic sample streams: settling, flat, rising, never settling, several subjects. */
class WarmupRuleTest {
    record Ended(WarmupRule.Reason reason, int samples, double wall) {}

    /** Feeds one sample of each stream per round (each round costs {@code roundSeconds} of wall time) until the rule ends the warm-up. */
    static Ended feed(WarmupRule rule, double roundSeconds, IntToDoubleFunction... streams) {
        List<List<Double>> seen = new ArrayList<>();
        for (var ignored : streams) seen.add(new ArrayList<>());
        double wall = 0;
        for (int i = 0; i < 1_000_000; i++) {
            for (int s = 0; s < streams.length; s++) seen.get(s).add(streams[s].applyAsDouble(i));
            wall += roundSeconds;
            List<double[]> arrays = seen.stream().map(l -> l.stream().mapToDouble(Double::doubleValue).toArray()).toList();
            Optional<WarmupRule.Reason> r = rule.check(arrays, wall);
            if (r.isPresent()) return new Ended(r.get(), i + 1, wall);
        }
        throw new AssertionError("never ended");
    }

    /** The demo's rule: 0.05 s at least, 0.25 s at most, levels within 0.5%. */
    static final WarmupRule DEMO = WarmupRule.of(TimingConfig.quick());

    /** The H200's 25 us row: 2% above its settled level at first, falling over its first ~500 samples (0.2 s), with 0.3% noise. */
    static IntToDoubleFunction settling(long seed) {
        Random rnd = new Random(seed);
        return i -> 24.45e-6 * (1 + 0.02 * Math.exp(-i / 150.0)) * (1 + 0.003 * rnd.nextGaussian());
    }

    @Test
    void theDemosRuleComesFromItsTimingConfig() {
        assertEquals(0.05, DEMO.minSeconds());
        assertEquals(0.05 + WarmupRule.EXTRA_SECONDS, DEMO.maxSeconds(), 1e-12);
        assertEquals(StopRule.MAX_NOISE, DEMO.maxFall());
        assertTrue(WarmupRule.of(new TimingConfig(Mode.HOT, 0, StopRule.standard(), 1)).none(), "no warm-up asked, none taken");
    }

    @Test
    void aJitDevicesWarmUpWaitsForTheCompilerUpToItsLongerCap() {
        WarmupRule jit = WarmupRule.of(TimingConfig.quick(), true);
        assertEquals(0.05 + WarmupRule.JIT_EXTRA_SECONDS, jit.maxSeconds(), 1e-12);
        List<double[]> flat = List.of(new double[]{1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3});
        assertEquals(Optional.empty(), jit.check(flat, 1.0, false), "levels flat, but the JIT still compiles: not over");
        assertEquals(Optional.of(WarmupRule.Reason.SETTLED), jit.check(flat, 1.0, true));
        assertEquals(Optional.of(WarmupRule.Reason.CAPPED), jit.check(flat, jit.maxSeconds(), false), "the cap ends it whatever the compiler does");
    }

    @Test
    void aFlatStreamEndsAtTheMinimumTime() {
        Random rnd = new Random(1);
        Ended e = feed(DEMO, 0.4e-3, i -> 25e-6 * (1 + 0.003 * rnd.nextGaussian()));
        assertEquals(WarmupRule.Reason.SETTLED, e.reason());
        assertEquals(0.05, e.wall(), 0.4e-3 + 1e-9);
    }

    @Test
    void aSettlingStreamWarmsUpUntilItsLevelHasStoppedFalling() {
        // 0.4 ms a round: the fall lasts ~0.2 s. A fixed 0.05 s warm-up leaves over 0.5% of it for sampling to see.
        Ended fixed = feed(DEMO.fixed(), 0.4e-3, settling(2));
        assertTrue(left(fixed) > 0.005, fixed.toString());
        Ended e = feed(DEMO, 0.4e-3, settling(2));
        assertTrue(e.wall() > 0.1, e.toString());
        assertTrue(left(e) < 0.001, e.toString());
    }

    /** The part of {@link #settling}'s fall still ahead when the warm-up ended. */
    static double left(Ended e) { return 0.02 * Math.exp(-e.samples() / 150.0); }

    @Test
    void aRisingStreamIsNotWaitedFor() {
        Random rnd = new Random(3);
        Ended e = feed(DEMO, 0.4e-3, i -> 25e-6 * (1 + 0.0001 * i) * (1 + 0.001 * rnd.nextGaussian()));
        assertEquals(WarmupRule.Reason.SETTLED, e.reason());
        assertEquals(0.05, e.wall(), 0.4e-3 + 1e-9);
    }

    @Test
    void aStreamThatKeepsFallingEndsAtTheCap() {
        Ended e = feed(DEMO, 0.4e-3, i -> 25e-6 * (1 - 0.0005 * i));
        assertEquals(WarmupRule.Reason.CAPPED, e.reason());
        assertEquals(DEMO.maxSeconds(), e.wall(), 0.4e-3 + 1e-9);
    }

    @Test
    void theGroupWaitsForItsSlowestSubject() {
        Random rnd = new Random(4);
        Ended both = feed(DEMO, 0.4e-3, i -> 200e-6 * (1 + 0.002 * rnd.nextGaussian()), settling(5));
        Ended alone = feed(DEMO, 0.4e-3, i -> 200e-6 * (1 + 0.002 * rnd.nextGaussian()));
        assertTrue(both.wall() > alone.wall() + 0.05, both + " vs " + alone);
    }

    @Test
    void longRoundsStillTakeTheMinimumSamples() {
        // A 32k graph replay: 15 ms a round passes the minimum time after 4 rounds; 4 samples are the least judged.
        Ended e = feed(DEMO, 15e-3, i -> 700e-6);
        assertEquals(WarmupRule.MIN_SAMPLES, e.samples());
        assertFalse(DEMO.settled(new double[]{1, 1, 1}), "3 samples are too few to compare halves");
    }

    @Test
    void fixedEndsAtTheMinimumWhateverTheLevelsDo() {
        Ended e = feed(DEMO.fixed(), 0.4e-3, i -> 25e-6 * (1 - 0.0005 * i));
        assertEquals(0.05, e.wall(), 0.4e-3 + 1e-9);
        assertTrue(new WarmupRule(0, 0, 0.005, 4).none());
        assertFalse(DEMO.none());
    }

    @Test
    void badRulesAreRejectedByName() {
        var cap = assertThrows(IllegalArgumentException.class, () -> new WarmupRule(0.2, 0.1, 0.005, 4));
        assertTrue(cap.getMessage().contains("cap"), cap.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new WarmupRule(Double.NaN, 1, 0.005, 4));
        assertThrows(IllegalArgumentException.class, () -> new WarmupRule(0, 1, 0, 4));
        assertThrows(IllegalArgumentException.class, () -> new WarmupRule(0, 1, 0.005, 1));
    }
}
