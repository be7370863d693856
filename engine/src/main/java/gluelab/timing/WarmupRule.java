package gluelab.timing;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * When a group's warm-up is over. The warm-up takes real samples, the way sampling will (cold:
 * each launch after its own flush), and throws them away; it lasts at least {@code minSeconds} of
 * wall time, then ends once every subject's level has stopped falling: the median of the later
 * half of its warm-up samples is not below the median of the earlier half by more than
 * {@code maxFall} (relative), with at least {@code minSamples} samples. It ends at
 * {@code maxSeconds} regardless.
 *
 * <p>Why: on the H200 a 25 us row read 1.2% lower after its first ~100 cold samples than in them,
 * so a short measurement read the settling level and a long one the settled level; the old warm-up
 * (back-to-back launches, no flushes) did not bring the device into the state of cold sampling.
 * Halves of the whole warm-up (not a fixed window) let a slow fall show: the windows grow as the
 * warm-up goes on, and the later half's level is the one sampling starts from.
 */
public record WarmupRule(double minSeconds, double maxSeconds, double maxFall, int minSamples) {
    public enum Reason { SETTLED, CAPPED }

    /** How much longer than its minimum a warm-up may run while levels still fall. */
    public static final double EXTRA_SECONDS = 0.2;

    /**
     * The same where the kernels are JVM code: the JIT compiles a loop in the background while it
     * runs (C1, then C2, for seconds on a busy 2-core machine), and a warm-up capped at 0.2 s left a
     * process's first group read 20-30% slow against the same ops measured after another group.
     */
    public static final double JIT_EXTRA_SECONDS = 3.0;

    /** How long the JIT must have finished no compilation for a JIT device's warm-up to end. */
    public static final double JIT_QUIET_SECONDS = 0.1;

    /** Samples each subject has at least before its level is judged (two per half). */
    public static final int MIN_SAMPLES = 4;

    public WarmupRule {
        if (!(minSeconds >= 0) || Double.isInfinite(minSeconds)) throw new IllegalArgumentException("warm-up must be a finite number >= 0 s, got " + minSeconds);
        if (!(maxSeconds >= minSeconds) || Double.isInfinite(maxSeconds)) throw new IllegalArgumentException("warm-up cap must be finite and >= the warm-up (" + minSeconds + " s), got " + maxSeconds);
        if (!(maxFall > 0) || !(maxFall < 1)) throw new IllegalArgumentException("warm-up fall bound must be > 0 and < 1 (a fraction), got " + maxFall);
        if (minSamples < 2) throw new IllegalArgumentException("warm-up needs >= 2 samples a subject to compare halves, got " + minSamples);
    }

    /**
     * The rule of a timing config: its warm-up as the minimum, {@link #EXTRA_SECONDS} more at most, its
     * noise bound as the fall bound; a config with no warm-up gets none.
     */
    public static WarmupRule of(TimingConfig config) { return of(config, false); }

    /** {@link #of(TimingConfig)}, with {@link #JIT_EXTRA_SECONDS} for a device whose kernels the JIT compiles. */
    public static WarmupRule of(TimingConfig config, boolean jitCompiled) {
        double min = config.warmupSeconds();
        return new WarmupRule(min, min == 0 ? 0 : min + (jitCompiled ? JIT_EXTRA_SECONDS : EXTRA_SECONDS), config.stop().maxNoise(), MIN_SAMPLES);
    }

    /** No sampled warm-up at all: a config with zero warm-up asks for none. */
    public boolean none() { return maxSeconds == 0; }

    /** The same minimum with no extension: ends at {@code minSeconds} whatever the levels do. */
    public WarmupRule fixed() { return new WarmupRule(minSeconds, minSeconds, maxFall, minSamples); }

    /**
     * Whether the warm-up ends now, given each subject's warm-up samples so far (seconds, in the
     * order taken) and the wall time it has run.
     */
    public Optional<Reason> check(List<double[]> samplesPerSubject, double wallSeconds) { return check(samplesPerSubject, wallSeconds, true); }

    /** {@link #check(List, double)}, where a warm-up also waits while the JIT is still compiling ({@code compilerQuiet} false). */
    public Optional<Reason> check(List<double[]> samplesPerSubject, double wallSeconds, boolean compilerQuiet) {
        if (wallSeconds >= maxSeconds) return Optional.of(Reason.CAPPED);
        if (wallSeconds < minSeconds || !compilerQuiet) return Optional.empty();
        for (double[] s : samplesPerSubject) {
            if (!settled(s)) return Optional.empty();
        }
        return Optional.of(Reason.SETTLED);
    }

    /** Whether one subject's level has stopped falling: its later half's median is not below the earlier half's by more than the bound. */
    public boolean settled(double[] samples) {
        int n = samples.length;
        if (n < minSamples) return false;
        double early = Summary.of(Arrays.copyOfRange(samples, 0, n / 2)).median(), late = Summary.of(Arrays.copyOfRange(samples, n / 2, n)).median();
        return late >= early * (1 - maxFall);
    }
}
