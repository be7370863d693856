package gluelab.timing;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The quiet check's readings: utilisation settling after our own work, NVML's throttle reasons, foreign processes. */
class QuietCheckTest {
    @Test
    void utilisationFromOurOwnLastWorkSettlesBeforeTheDeviceIsCalledBusy() {
        // NVML's window still holds the screen that ran just before: 99%, then idle.
        var readings = new java.util.ArrayDeque<>(List.of("99", "3", "0"));
        var settled = QuietCheck.settled(() -> Map.of("gpu_utilization_percent", readings.pop()), java.time.Duration.ZERO, 3);
        assertEquals("3", settled.get("gpu_utilization_percent"));
        assertEquals("2", settled.get("utilization_reads"));
        // Busy on every read: the last reading stands, and says how many reads it took.
        var busy = new java.util.ArrayDeque<>(List.of("97", "98", "99", "1"));
        var stillBusy = QuietCheck.settled(() -> Map.of("gpu_utilization_percent", busy.pop()), java.time.Duration.ZERO, 3);
        assertEquals("99", stillBusy.get("gpu_utilization_percent"));
        assertEquals("3", stillBusy.get("utilization_reads"));
        // Idle, or no utilisation reading (the CPU): read once.
        var once = new java.util.concurrent.atomic.AtomicInteger();
        QuietCheck.settled(() -> { once.incrementAndGet(); return Map.of(); }, java.time.Duration.ZERO, 3);
        assertEquals(1, once.get());
    }

    @Test
    void throttleReasonsFromNvmlMarkAProcess() {
        assertTrue(QuietCheck.throttled(Map.of("clock_event_reasons", "0x40")).orElseThrow().contains("HW thermal"));
        assertTrue(QuietCheck.throttled(Map.of("clock_event_reasons", "0x28")).orElseThrow().contains("HW slowdown, SW thermal"));
        assertTrue(QuietCheck.throttled(Map.of("clock_event_reasons", "0x1")).isEmpty(), "GPU idle is not throttling");
        assertTrue(QuietCheck.throttled(Map.of("clock_event_reasons", "0x4")).isEmpty(), "the power cap under load is not throttling");
        assertTrue(QuietCheck.throttled(Map.of("clock_event_reasons", "0xffffffffffffffff")).isEmpty(), "NVML's failure value (-1) says nothing");
        assertTrue(QuietCheck.throttled(Map.of()).isEmpty(), "the CPU reports no clock events");
        assertEquals(List.of(7L, 9L), QuietCheck.foreign("[7, 8, 9]", java.util.Set.of(8L)), "our own processes are not foreign");
        assertEquals(List.of(), QuietCheck.foreign("[]", java.util.Set.of()));
    }
}
