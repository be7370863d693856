package gluelab.timing;

import gluelab.device.*;
import gluelab.backend.cpu.CpuDevice;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

/** The harness on the CPU device, timing real copies: interleaving, discarded samples, timeouts. */
class HarnessTest {
    CpuDevice cpu;
    Buffer a, b;

    @BeforeEach
    void setUp() {
        cpu = new CpuDevice(1);
        // 1 MiB: long enough that no two timings are equal to the nanosecond (identical samples have no noise).
        a = cpu.allocate(TensorSpec.of("a", DType.FP32, 1 << 18));
        b = cpu.allocate(TensorSpec.of("b", DType.FP32, 1 << 18));
    }

    @AfterEach
    void tearDown() {
        a.close();
        b.close();
        cpu.close();
    }

    /** A real copy launch that notes each run in {@code order}. */
    Launch copy(String name, List<String> order) {
        Launch inner = cpu.copyKernel(a, b);
        return new Launch() {
            @Override public void run() { order.add(name); inner.run(); }

            @Override public int kernels() { return 1; }

            @Override public long scratchBytes() { return 0; }
        };
    }

    /** A launch that replays {@code n} copies per run, as a CUDA graph does. */
    Launch replayed(String name, List<String> order, int n) {
        Launch inner = cpu.copyKernel(a, b);
        return new Launch() {
            @Override public void run() { order.add(name); for (int i = 0; i < n; i++) inner.run(); }

            @Override public int kernels() { return 1; }

            @Override public int repeats() { return n; }

            @Override public long scratchBytes() { return 0; }
        };
    }

    static final TimingConfig HOT = new TimingConfig(Mode.HOT, 0, StopRule.standard(), 1);

    @Test
    void subjectsAreSampledInRotatingOrderAndEachStopsOnItsOwnRuleWithItsNeighboursKept() {
        List<String> order = new ArrayList<>();
        StopRule ten = new StopRule(10, 0, 0.9, 5, 10), thirty = new StopRule(30, 0, 0.9, 5, 30);
        List<Measurement> ms = new Harness(cpu).interleave(List.of(
                new Harness.Subject("x", copy("x", order), 0, ten),
                new Harness.Subject("y", copy("y", order), 0, thirty),
                new Harness.Subject("z", copy("z", order), 0, ten)), HOT);
        // Each runs twice first, round-robin (no warm-up asked); then round r starts at subject r mod 3.
        assertEquals(List.of("x", "y", "z", "x", "y", "z"), order.subList(0, 6));
        assertEquals(List.of("x", "y", "z", "y", "z", "x", "z", "x", "y"), order.subList(6, 15));
        assertEquals(List.of(10, 30, 10), ms.stream().map(m -> m.summary().count()).toList());
        assertEquals(List.of(StopRule.Reason.MAX_SAMPLES, StopRule.Reason.MAX_SAMPLES, StopRule.Reason.MAX_SAMPLES),
                ms.stream().map(Measurement::stopReason).toList());
        // x and z stopped after 10 samples but kept running, unrecorded, until y had its 30: y's neighbours never changed.
        assertEquals(List.of("x", "y", "z"), order.subList(order.size() - 3, order.size()).stream().sorted().toList());
        assertEquals(2 + 30, order.stream().filter("x"::equals).count());
    }

    @Test
    void graphReplaysAreSampledAfterTheDirectLaunchesAndStopOnTheirOwn() {
        List<String> order = new ArrayList<>();
        StopRule ten = new StopRule(10, 0, 0.9, 5, 10), twenty = new StopRule(20, 0, 0.9, 5, 20);
        List<Measurement> ms = new Harness(cpu).interleave(List.of(
                new Harness.Subject("d", copy("d", order), 0, ten),
                new Harness.Subject("g", replayed("g", order, 2), 0, ten),
                new Harness.Subject("h", replayed("h", order, 2), 0, twenty)), HOT);
        assertEquals(List.of(10, 10, 20), ms.stream().map(m -> m.summary().count()).toList());
        int lastDirect = order.lastIndexOf("d"), firstGraph = order.subList(6, order.size()).indexOf("g") + 6;
        assertTrue(lastDirect < firstGraph, "the direct launch's samples all come before the replays': " + order);
        // g stopped at 10 and was not run again while h took its last 10.
        assertEquals(List.of("h", "h", "h", "h"), order.subList(order.size() - 4, order.size()));
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void aColdWarmUpTakesFlushedSamplesThatAreNotKept() {
        List<String> order = new ArrayList<>();
        StopRule ten = new StopRule(10, 0, 0.9, 30, 10);
        Measurement m = new Harness(cpu).measure(new Harness.Subject("c", copy("c", order), 0, ten),
                new TimingConfig(Mode.COLD, 0.02, ten, 1, 0));
        assertEquals(10, m.summary().count());
        // Two runs first, then at least 0.02 s and 4 samples of warm-up, then the 10 kept samples.
        assertTrue(order.size() >= 2 + WarmupRule.MIN_SAMPLES + 10, order.size() + " runs");
    }

    @Test
    void anUnreachableBoundStopsAtTheTimeoutAndIsFlaggedNoisy() {
        StopRule impossible = new StopRule(10, 0, 1e-12, 0.2, 1_000_000);
        long t0 = System.nanoTime();
        Measurement m = new Harness(cpu).measure(new Harness.Subject("copy", copy("c", new ArrayList<>()), 0, impossible), HOT);
        double took = (System.nanoTime() - t0) * 1e-9;
        assertEquals(StopRule.Reason.TIMEOUT, m.stopReason());
        // Running to the 1,000,000-sample cap would take minutes; 30 s leaves a loaded machine its pauses.
        assertTrue(m.wallSeconds() >= 0.2 && took < 30, m.wallSeconds() + " " + took);
        assertTrue(m.noisy().orElseThrow().contains("timeout"), m.noisy().toString());
        assertSame(impossible, m.rule());
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void aColdLaunchShorterThanTheColdSampleTimeIsAveragedOverSeveralFlushedLaunches() {
        StopRule ten = new StopRule(10, 0, 0.9, 30, 10);
        List<String> order = new ArrayList<>();
        // k comes from one timed probe, which a loaded machine can preempt past 2 ms; with every launch read as
        // 0.5 ms (the copies still run), a cold sample of at least 2 ms averages exactly k = 4 of them.
        try (Device halfMs = new FixedTime(cpu, 0.5e-3)) {
            Measurement m = new Harness(halfMs).measure(new Harness.Subject("c", copy("c", order), 0, ten),
                    new TimingConfig(Mode.COLD, 0, ten, 1, 0.002));
            assertEquals(10, m.summary().count());
            int sampled = order.size() - 3;  // two warm-up runs and the probe that sets k
            assertEquals(10 * 4, sampled, "every sample times the same k = 4 launches");
            assertEquals(0.5e-3, m.summary().median(), 1e-12, "a sample is the mean of its launches");
        }
        List<String> single = new ArrayList<>();
        new Harness(cpu).measure(new Harness.Subject("c", copy("c", single), 0, ten), new TimingConfig(Mode.COLD, 0, ten, 1, 0));
        assertEquals(2 + 10, single.size(), "no cold sample time: one launch a sample and no probe");
    }

    @Test
    void invalidSamplesAreDiscardedAndCounted() {
        try (Device throttled = new Throttled(cpu, 2)) {
            StopRule rule = new StopRule(20, 0, 0.9, 5, 20);
            Measurement m = new Harness(throttled).measure(new Harness.Subject("copy", copy("c", new ArrayList<>()), 0, rule), HOT);
            assertEquals(20, m.summary().count());
            assertEquals(20, m.discarded(), "every other sample was taken while throttled");
            assertEquals(Optional.empty(), m.noisy());
        }
    }

    @Test
    void aSubjectWithNoValidSampleByItsTimeoutFailsNamingIt() {
        try (Device throttled = new Throttled(cpu, Integer.MAX_VALUE)) {
            StopRule rule = new StopRule(5, 0, 0.9, 0.1, 100);
            var e = assertThrows(IllegalStateException.class, () ->
                    new Harness(throttled).measure(new Harness.Subject("rmsnorm fwd eager", copy("c", new ArrayList<>()), 0, rule), HOT));
            assertTrue(e.getMessage().startsWith("rmsnorm fwd eager: all "), e.getMessage());
            assertTrue(e.getMessage().contains("discarded"), e.getMessage());
        }
    }

    @Test
    void graphSamplesCountEveryReplayedLaunchTowardsTheMinimumTime() {
        // A launch that "replays" 20 copies per run, as a CUDA graph does: samples are per copy, device time per replay.
        Launch inner = cpu.copyKernel(a, b);
        Launch replay = new Launch() {
            @Override public void run() { for (int i = 0; i < 20; i++) inner.run(); }

            @Override public int kernels() { return 1; }

            @Override public int repeats() { return 20; }

            @Override public long scratchBytes() { return 0; }
        };
        StopRule rule = new StopRule(5, 0.02, 0.9, 5, 1_000_000);
        Measurement single = new Harness(cpu).measure(new Harness.Subject("one", inner, 0, rule), HOT);
        Measurement graph = new Harness(cpu).measure(new Harness.Subject("graph", replay, 0, rule), HOT);
        // The replay stopped once its samples covered 0.02 s of device time counting all 20 copies each,
        // long before its per-copy times alone add up to that.
        double perCopy = java.util.Arrays.stream(graph.samples()).sum();
        assertTrue(perCopy * 20 >= 0.02 && perCopy < 0.02, "per copy " + perCopy + " s over " + graph.summary().count() + " samples");
        assertTrue(java.util.Arrays.stream(single.samples()).sum() >= 0.02);
    }

    /** The CPU device with a timer that reads every start/stop as {@code seconds}: the launches run, their time is fixed. */
    static final class FixedTime extends DelegatingDevice {
        final double seconds;

        FixedTime(CpuDevice cpu, double seconds) {
            super(cpu);
            this.seconds = seconds;
        }

        @Override public DeviceTimer timer() {
            return new DeviceTimer() {
                @Override public void start() {}

                @Override public void stop() {}

                @Override public double elapsedSeconds() { return seconds; }
            };
        }
    }

    /** The CPU device with a timer that marks all but every {@code every}-th sample invalid, as a throttled GPU's would be. */
    static final class Throttled extends DelegatingDevice {
        final int every;
        int samples;

        Throttled(CpuDevice cpu, int every) {
            super(cpu);
            this.every = every;
        }

        @Override public DeviceTimer timer() {
            DeviceTimer t = super.timer();
            return new DeviceTimer() {
                @Override public void start() { t.start(); }

                @Override public void stop() { t.stop(); samples++; }

                @Override public double elapsedSeconds() { return t.elapsedSeconds(); }

                @Override public boolean lastSampleValid() { return samples % every == 0; }
            };
        }
    }

    @Test
    void subjectsPairEachMeasurementWithItsKeyAndMakeNoGraphTwinWithoutGraphs() {
        List<String> order = new ArrayList<>();
        StopRule ten = new StopRule(10, 0, 0.5, 5, 10);
        try (Subjects<String> subjects = new Subjects<>(cpu)) {
            subjects.add("x", new Harness.Subject("x", copy("x", order), 0, ten));
            subjects.addGraphTwin("x graph", copy("x", order), "x (graph)", 0, ten);
            subjects.add("y", new Harness.Subject("y", copy("y", order), 0, ten));
            var timed = subjects.interleave(new Harness(cpu), HOT);
            assertEquals(List.of("x", "y"), timed.stream().map(Subjects.Timed::key).toList(), "the CPU has no graph replay: no twin row");
            assertTrue(timed.stream().allMatch(t -> t.measurement().samples().length >= 10));
        }
        assertTrue(GraphTwin.of(cpu, copy("z", order), "z (graph)", 0, ten).isEmpty());
    }
}
