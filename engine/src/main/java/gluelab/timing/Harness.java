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
 * launches and divide; stop by the {@link StopRule}. All raw samples are kept.
 */
public final class Harness {
    private final Device device;

    public Harness(Device device) { this.device = device; }

    /** A thing to time: its label, launch, and the bytes it holds (for the peak memory column). */
    public record Subject(String label, Launch launch, long argumentBytes) {}

    public Measurement measure(Subject subject, TimingConfig config) {
        return interleave(List.of(subject), config).getFirst();
    }

    /**
     * Screens several subjects in one process: each round takes one sample of every subject not yet
     * stopped, rotating the order each round so no subject always runs after the same neighbour.
     */
    public List<Measurement> interleave(List<Subject> subjects, TimingConfig config) {
        int n = subjects.size();
        // The first flush allocates and touches the flush buffer: keep that out of any sample's budget.
        if (config.mode() == Mode.COLD) device.flushCache();
        for (Subject s : subjects) warmUp(s.launch(), config.warmupSeconds());
        List<List<Double>> samples = new ArrayList<>();
        SampleStats[] stats = new SampleStats[n];
        StopRule.Reason[] reasons = new StopRule.Reason[n];
        double[] wall = new double[n];
        int[] discarded = new int[n];
        for (int i = 0; i < n; i++) {
            samples.add(new ArrayList<>());
            stats[i] = new SampleStats();
        }
        DeviceTimer timer = device.timer();
        for (int round = 0, open = n; open > 0; round++) {
            if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("measurement interrupted");
            for (int k = 0; k < n; k++) {
                int i = (round + k) % n;
                if (reasons[i] != null) continue;
                long t0 = System.nanoTime();
                double seconds = sample(subjects.get(i).launch(), config, timer);
                wall[i] += (System.nanoTime() - t0) * 1e-9;
                if (!timer.lastSampleValid()) {
                    discarded[i]++;
                    if (wall[i] < config.stop().timeoutSeconds() || stats[i].count() == 0) continue;
                } else {
                    samples.get(i).add(seconds);
                    stats[i].add(seconds);
                }
                Optional<StopRule.Reason> stop = config.stop().check(stats[i], wall[i]);
                if (stop.isPresent()) {
                    reasons[i] = stop.get();
                    open--;
                }
            }
        }
        List<Measurement> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double[] raw = samples.get(i).stream().mapToDouble(Double::doubleValue).toArray();
            Subject s = subjects.get(i);
            out.add(new Measurement(s.label(), config.mode(), raw, Summary.of(raw), reasons[i], s.launch().kernels(),
                    s.argumentBytes() + s.launch().scratchBytes(), wall[i], discarded[i]));
        }
        return out;
    }

    private void warmUp(Launch launch, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        int runs = 0;
        do {
            launch.run();
            device.synchronize();
            runs++;
        } while (runs < 2 || System.nanoTime() < end);
    }

    private double sample(Launch launch, TimingConfig config, DeviceTimer timer) {
        if (config.mode() == Mode.COLD) {
            device.flushCache();
            timer.start();
            launch.run();
            timer.stop();
            return timer.elapsedSeconds() / launch.repeats();
        }
        timer.start();
        for (int b = 0; b < config.hotBatch(); b++) launch.run();
        timer.stop();
        return timer.elapsedSeconds() / config.hotBatch() / launch.repeats();
    }
}
