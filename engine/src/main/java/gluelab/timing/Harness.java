package gluelab.timing;

import gluelab.device.Device;
import gluelab.device.DeviceTimer;
import gluelab.device.Launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Times launches on a device. Method: run each subject twice; warm up by sampling until levels
 * settle ({@link WarmupRule}); then per sample, in COLD mode flush the last-level cache and time
 * one launch, in HOT mode time a batch of back-to-back launches and divide; stop by each subject's
 * {@link StopRule}, which counts the device time a sample covered (all launches a graph replays).
 * All raw samples are kept.
 *
 * <p>A cold launch shorter than {@link TimingConfig#coldSampleSeconds()} (probed once before the
 * warm-up) is timed k times per sample, each after its own flush, and the sample is their mean:
 * a 7-50 us launch, mostly fixed costs, takes values from a few modes, and the median of single
 * launches jumps between modes as their shares move a little from run to run; the median of
 * means of k moves with the shares, smoothly.
 *
 * <p>A group is measured in two phases, direct launches first, then graph replays, each with its
 * own warm-up. Within the direct phase a subject that has stopped keeps being sampled, unrecorded,
 * until every subject of the phase has stopped, so every recorded sample had the same neighbours:
 * on the H200 a 25 us row read 24.85 us while a graph replay of its group still ran between its
 * samples and 24.45 us once that replay had stopped, so a short run and a long one (which keeps a
 * row alone for longer) disagreed by 1-2%. Graph replays take 10-20x longer a sample and stop
 * after a few samples; holding them until the direct rows converge would multiply a group's time,
 * so they get a phase of their own (each stops on its own rule there).
 */
public final class Harness {
    private final Device device;

    public Harness(Device device) { this.device = device; }

    /** A thing to time: its label, launch, the bytes it holds (for the peak memory column) and its stop rule. */
    public record Subject(String label, Launch launch, long argumentBytes, StopRule stop) {
        boolean graph() { return launch.repeats() > 1; }
    }

    public Measurement measure(Subject subject, TimingConfig config) {
        return interleave(List.of(subject), config).getFirst();
    }

    /**
     * Screens several subjects in one process: each round takes one sample of every subject not yet
     * stopped (direct launches and graph replays in separate phases, see above), rotating the order
     * each round so no subject always runs after the same neighbour. Samples the timer marks invalid
     * are discarded; a subject with no valid sample by its timeout fails the measurement, naming it.
     */
    public List<Measurement> interleave(List<Subject> subjects, TimingConfig config) {
        int n = subjects.size();
        // The first flush allocates and touches the flush buffer: keep that out of any sample's budget.
        if (config.mode() == Mode.COLD) device.flushCache();
        prime(subjects);
        DeviceTimer timer = device.timer();
        int[] perSample = new int[n];
        for (int i = 0; i < n; i++) {
            stopIfInterrupted();
            perSample[i] = launchesPerSample(subjects.get(i).launch(), config, timer);
        }
        Measurement[] out = new Measurement[n];
        boolean jit = device.capabilities().jitCompiled();
        WarmupRule warmup = WarmupRule.of(config, jit);
        for (boolean graphs : new boolean[]{false, true}) {
            List<Integer> phase = new ArrayList<>();
            for (int i = 0; i < n; i++) if (subjects.get(i).graph() == graphs) phase.add(i);
            if (phase.isEmpty()) continue;
            warmUp(subjects, phase, config, timer, perSample, graphs ? warmup.fixed() : warmup, jit);
            sample(subjects, phase, config, timer, perSample, !graphs, out);
        }
        return List.of(out);
    }

    /** Runs the group round-robin twice on every placement, so module loads and first touches are behind it. */
    private void prime(List<Subject> subjects) {
        for (int r = 0; r < 2; r++) {
            for (Subject s : subjects) {
                for (int p = 0; p < s.launch().placements(); p++) {
                    stopIfInterrupted();
                    s.launch().run();
                }
            }
            device.synchronize();
        }
    }

    /**
     * Warms the phase up under the conditions of sampling: rounds of real samples of every subject,
     * thrown away, back to back, until {@code rule} says the levels have settled.
     */
    private void warmUp(List<Subject> subjects, List<Integer> phase, TimingConfig config, DeviceTimer timer, int[] perSample, WarmupRule rule,
                        boolean jitCompiled) {
        if (rule.none()) return;
        List<SampleStream> streams = new ArrayList<>();
        for (int ignored : phase) streams.add(new SampleStream());
        long t0 = System.nanoTime();
        JitWatch jit = jitCompiled ? JitWatch.start() : null;
        for (int round = 0; ; round++) {
            stopIfInterrupted();
            for (int k = 0; k < phase.size(); k++) {
                int j = (round + k) % phase.size(), i = phase.get(j);
                double covered = sample(subjects.get(i).launch(), config, timer, perSample[i]);
                if (!Double.isNaN(covered)) streams.get(j).add(covered / perSample[i], covered);
            }
            List<double[]> so = streams.stream().map(SampleStream::samples).toList();
            if (rule.check(so, (System.nanoTime() - t0) * 1e-9, jit == null || jit.quietFor(WarmupRule.JIT_QUIET_SECONDS)).isPresent()) return;
        }
    }

    /** Samples the phase until each subject stops; with {@code lockstep}, stopped subjects keep being sampled, unrecorded, until all have. */
    private void sample(List<Subject> subjects, List<Integer> phase, TimingConfig config, DeviceTimer timer, int[] perSample, boolean lockstep,
                        Measurement[] out) {
        int m = phase.size();
        SampleStream[] streams = new SampleStream[m];
        StopRule.Reason[] reasons = new StopRule.Reason[m];
        double[] wall = new double[m];
        int[] discarded = new int[m];
        for (int j = 0; j < m; j++) streams[j] = new SampleStream();
        for (int round = 0, open = m; open > 0; round++) {
            stopIfInterrupted();
            for (int k = 0; k < m; k++) {
                int j = (round + k) % m, i = phase.get(j);
                Subject s = subjects.get(i);
                if (reasons[j] != null) {
                    if (lockstep) sample(s.launch(), config, timer, perSample[i]);
                    continue;
                }
                long t0 = System.nanoTime();
                double covered = sample(s.launch(), config, timer, perSample[i]);
                wall[j] += (System.nanoTime() - t0) * 1e-9;
                if (!Double.isNaN(covered)) {
                    streams[j].add(covered / perSample[i], covered);
                } else {
                    discarded[j]++;
                    if (streams[j].count() == 0 && wall[j] >= s.stop().timeoutSeconds()) {
                        throw new IllegalStateException(String.format(java.util.Locale.ROOT,
                                "%s: all %d samples in %.1f s were invalid and discarded (device throttled?); nothing measured",
                                s.label(), discarded[j], wall[j]));
                    }
                    continue;
                }
                Optional<StopRule.Reason> stop = s.stop().check(streams[j], wall[j]);
                if (stop.isPresent()) {
                    reasons[j] = stop.get();
                    open--;
                }
            }
        }
        for (int j = 0; j < m; j++) {
            Subject s = subjects.get(phase.get(j));
            double[] raw = streams[j].samples();
            out[phase.get(j)] = new Measurement(s.label(), config.mode(), raw, Summary.of(raw), reasons[j], s.launch().kernels(),
                    s.argumentBytes() + s.launch().scratchBytes(), wall[j], discarded[j], streams[j].finalNoise(), s.stop(),
                    s.launch().placements());
        }
    }

    /**
     * Launches one sample times: a graph replay's launches; a batch in HOT mode; in COLD mode as
     * many cold launches as cover {@link TimingConfig#coldSampleSeconds()}, from one probe (at most
     * 64), rounded up to a multiple of the launch's placements.
     */
    private int launchesPerSample(Launch launch, TimingConfig config, DeviceTimer timer) {
        if (config.mode() == Mode.HOT) return launch.repeats() * config.hotBatch();
        if (launch.repeats() > 1) return launch.repeats();
        int k = 1;
        if (config.coldSampleSeconds() > 0) {
            double probe = sample(launch, config, timer, 1);
            if (probe > 0) k = (int) Math.max(1, Math.min(64, Math.ceil(config.coldSampleSeconds() / probe)));
        }
        // A launch rotating through placements: every sample covers each placement alike, so samples are means over all
        // of them (one mode), not a mixture of each placement's level that the median's interval would straddle.
        int p = launch.placements();
        return (k + p - 1) / p * p;
    }

    /**
     * Takes one sample of {@code launches} launches; returns the device time it covered (every
     * launch in it), or NaN when the timer marked any part invalid.
     */
    private double sample(Launch launch, TimingConfig config, DeviceTimer timer, int launches) {
        if (config.mode() == Mode.HOT) {
            timer.start();
            for (int b = 0; b < config.hotBatch(); b++) launch.run();
            timer.stop();
            double t = timer.elapsedSeconds();
            return timer.lastSampleValid() ? t : Double.NaN;
        }
        // A graph replay is one launch of the device; its own count divides the sample.
        int cold = launch.repeats() > 1 ? 1 : launches;
        double covered = 0;
        boolean valid = true;
        for (int k = 0; k < cold; k++) {
            stopIfInterrupted();
            device.flushCache();
            timer.start();
            launch.run();
            timer.stop();
            covered += timer.elapsedSeconds();
            valid &= timer.lastSampleValid();
        }
        return valid ? covered : Double.NaN;
    }

    /**
     * Every loop of a measurement checks the interrupt (priming, the launch-count probe, warm-up and
     * sampling rounds, each cold launch): an interrupted bench stops within a launch.
     */
    private static void stopIfInterrupted() {
        if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("measurement interrupted");
    }
}
