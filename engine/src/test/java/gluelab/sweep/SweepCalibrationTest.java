package gluelab.sweep;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.model.SpecRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The shards of one sweep divide by one calibration per kind of device, however busy the machine
 * (a busy calibration is never cached as the device's figure, so each worker used to measure its own,
 * and a merge refused shards whose calibrations were more than 5% apart).
 */
@Tag("slow") // calibrates the CPU
class SweepCalibrationTest {
    static final String PLAN = "{\"ops\": \"rmsnorm\", \"tokens\": \"8\", \"passes\": \"fwd\", \"check\": 0}";

    @Test
    void aLaterWorkerUsesTheCalibrationTheFirstOneKeptInTheSweep(@TempDir Path tmp) throws Exception {
        SweepDir dir = SweepDir.create(tmp.resolve("sweep"), PlanFile.parse(PLAN, "plan.json", SpecRegistry.presets()));
        try (Device cpu = Devices.open("cpu")) {
            Calibration first = ShardRunner.calibrate(cpu, tmp.resolve("cache-a"), dir);
            assertTrue(Files.isRegularFile(dir.root().resolve("calibration-" + cpu.facts().fingerprint() + ".json")));
            // A worker with a cache of its own (another node, or a busy first calibration that was not cached) measures nothing.
            Calibration second = ShardRunner.calibrate(cpu, tmp.resolve("cache-b"), dir);
            assertEquals(first.measuredAt(), second.measuredAt());
            assertEquals(first.copyMedian(), second.copyMedian());
            assertEquals(first.busy(), second.busy(), "a busy flag travels with the shared calibration");
            assertFalse(Files.exists(tmp.resolve("cache-b")), "the second worker did not calibrate (its cache was never made)");
        }
    }
}
