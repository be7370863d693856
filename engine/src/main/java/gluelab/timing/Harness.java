package gluelab.timing;

import gluelab.device.Device;
import gluelab.device.DeviceTimer;
import gluelab.device.Launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Times launches on a device. Method: warm up for a fixed time; then per sample, in COLD mode
 * flush the last-level cache and time one launch, in HOT mode time a batch of back-to-back
 * launches and divide; stop by each subject's {@link StopRule}, which counts the device time a
 * sample covered (all launches a graph replays). All raw samples are kept.
 *
 * <p>A cold launch shorter than {@link TimingConfig#coldSampleSeconds()} (probed once after the
 * warm-up) is timed k times per sample, each after its own flush, and the sample is their mean:
 * a 7-50 us launch, mostly fixed costs, takes values from a few modes, and the median of single
 * launches jumps between modes as their shares move a little from run to run; the median of
 * means of k moves with the shares, smoothly.
 */
public final class Harness {
    private final Device device;

    public Harness(Device device) { this.device = device; }

    /** A thing to time: its label, launch, the bytes it holds (for the peak memory column) and its stop rule. */
    public record Subject(String label, Launch launch, long argumentBytes, StopRule stop) {}

    public Measurement measure(Subject subject, TimingConfig config) {
        return interleave(List.of(subject), config).getFirst();
    }

    /**
     * Screens several subjects in one process: each round takes one sample of every subject not yet
     * stopped, rotating the order each round so no subject always runs after the same neighbour.
     * Samples the timer marks invalid are discarded; a subject with no valid sample by its timeout
     * fails the measurement, naming it.
     */
    public List<Measurement> interleave(List<Subject> subjects, TimingConfig config) {
        int n = subjects.size();
        // The first flush allocates and touches the flush buffer: keep that out of any sample's budget.
        if (config.mode() == Mode.COLD) device.flushCache();
        warmUp(subjects, config.warmupSeconds());
        DeviceTimer timer = device.timer();
        int[] perSample = new int[n];
        for (int i = 0; i < n; i++) perSample[i] = launchesPerSample(subjects.get(i).launch(), config, timer);
        SampleStream[] streams = new SampleStream[n];
        StopRule.Reason[] reasons = new StopRule.Reason[n];
        double[] wall = new double[n];
        int[] discarded = new int[n];
        for (int i = 0; i < n; i++) streams[i] = new SampleStream();
        for (int round = 0, open = n; open > 0; round++) {
            if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("measurement interrupted");
            for (int k = 0; k < n; k++) {
                int i = (round + k) % n;
                if (reasons[i] != null) continue;
                Subject s = subjects.get(i);
                long t0 = System.nanoTime();
                double covered = sample(s.launch(), config, timer, perSample[i]);
                wall[i] += (System.nanoTime() - t0) * 1e-9;
                if (!Double.isNaN(covered)) {
                    streams[i].add(covered / perSample[i], covered);
                } else {
                    discarded[i]++;
                    if (streams[i].count() == 0 && wall[i] >= s.stop().timeoutSeconds()) {
                        throw new IllegalStateException(String.format(java.util.Locale.ROOT,
                                "%s: all %d samples in %.1f s were invalid and discarded (device throttled?); nothing measured",
                                s.label(), discarded[i], wall[i]));
                    }
                    continue;
                }
                Optional<StopRule.Reason> stop = s.stop().check(streams[i], wall[i]);
                if (stop.isPresent()) {
                    reasons[i] = stop.get();
                    open--;
                }
            }
        }
        List<Measurement> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double[] raw = streams[i].samples();
            Subject s = subjects.get(i);
            out.add(new Measurement(s.label(), config.mode(), raw, Summary.of(raw), reasons[i], s.launch().kernels(),
                    s.argumentBytes() + s.launch().scratchBytes(), wall[i], discarded[i], streams[i].finalNoise(), s.stop()));
        }
        return out;
    }

    /**
     * Clocks and caches are shared by the group: its launches run round-robin, back to back, for the
     * whole warm-up time (at least twice each), so the device is busy under the group's own load,
     * without gaps, until sampling starts (split into a millisecond per subject, a group of 50 rows
     * left the device idling between tiny warm-ups).
     */
    private void warmUp(List<Subject> subjects, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        int rounds = 0;
        do {
            for (Subject s : subjects) s.launch().run();
            device.synchronize();
            rounds++;
        } while (rounds < 2 || System.nanoTime() < end);
    }

    /**
     * Launches one sample times: a graph replay's launches; a batch in HOT mode; in COLD mode as
     * many cold launches as cover {@link TimingConfig#coldSampleSeconds()}, from one probe (at most 64).
     */
    private int launchesPerSample(Launch launch, TimingConfig config, DeviceTimer timer) {
        if (config.mode() == Mode.HOT) return launch.repeats() * config.hotBatch();
        if (launch.repeats() > 1 || config.coldSampleSeconds() <= 0) return launch.repeats();
        double probe = sample(launch, config, timer, 1);
        if (!(probe > 0)) return 1;
        return (int) Math.max(1, Math.min(64, Math.ceil(config.coldSampleSeconds() / probe)));
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
            device.flushCache();
            timer.start();
            launch.run();
            timer.stop();
            covered += timer.elapsedSeconds();
            valid &= timer.lastSampleValid();
        }
        return valid ? covered : Double.NaN;
    }
}
