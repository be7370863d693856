package gluelab.bench;

import gluelab.calibrate.Calibration;
import gluelab.backend.cpu.CpuDevice;
import gluelab.model.SpecRegistry;
import gluelab.progress.Progress;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/** The one runner: it tunes exactly when the plan says so, and a peer's rows come after the device's. */
class BenchSessionTest {
    static final Calibration CAL = Calibration.given("test", 50e9, 1e11);

    static BenchPlan.Builder small() {
        return BenchPlan.builder(SpecRegistry.presets()).ops(List.of("rmsnorm")).tokens("64").timing(TimingConfig.quick()).check(0);
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void tunesWhenThePlanSaysSoAndOnlyThen() {
        try (CpuDevice device = new CpuDevice(2)) {
            List<String> tasks = new ArrayList<>();
            Progress seen = (task, done, total, detail) -> tasks.add(task);
            BenchSession session = BenchSession.on(device, CAL).progress(seen);
            BenchResult plain = session.run(small().build());
            assertFalse(tasks.stream().anyMatch(t -> t.startsWith("tune")), tasks.toString());
            assertTrue(session.tuned().isEmpty());
            assertEquals(2, plain.rows().size());

            // A plan that tunes tunes on the CPU only when asked to tune every device (bench --tune).
            tasks.clear();
            session.run(small().tune(true).build());
            assertFalse(tasks.contains("tune"), "the CPU tunes only when asked: " + tasks);

            tasks.clear();
            BenchResult tuned = session.tuneEveryDevice(true).run(small().tune(true).build());
            assertTrue(tasks.contains("tune"), tasks.toString());
            assertTrue(tasks.indexOf("tune") < tasks.indexOf("bench"), "tuning comes before measuring: " + tasks);
            assertEquals(2, tuned.rows().size());
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void aPeerGetsThePlanAndTheDeviceRows() {
        try (CpuDevice device = new CpuDevice(2)) {
            AtomicReference<BenchResult> given = new AtomicReference<>();
            BenchPlan plan = small().build();
            BenchResult out = BenchSession.on(device, CAL).peer((p, cal, own, progress) -> {
                assertSame(plan, p);
                assertSame(CAL, cal);
                given.set(own);
                return new BenchResult(own.rows().subList(0, 1), own.checks());
            }).run(plan);
            assertEquals(2, given.get().rows().size());
            assertEquals(1, out.rows().size(), "the peer's result is the run's result");
        }
    }
}
