package gluelab.calibrate;

import gluelab.device.Capabilities;
import gluelab.device.DelegatingDevice;
import gluelab.backend.cpu.CpuDevice;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CalibratorTest {
    /** The CPU device asking for 16 MiB calibration buffers: quick to measure. */
    private static DelegatingDevice small(CpuDevice cpu) {
        return new DelegatingDevice(cpu) {
            @Override public Capabilities capabilities() {
                Capabilities c = inner.capabilities();
                return new Capabilities(c.dtypes(), c.graphReplay(), c.peakFlops(), 16L << 20, c.placements());
            }
        };
    }

    @Tag("slow") // measures the CPU copy bandwidth
    @Test
    void aCalibrationCachedByAnOlderMethodIsMeasuredAgain(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (CpuDevice cpu = new CpuDevice(1)) {
            var device = small(cpu);
            // What method 1 left behind: its file name had no method, and its CPU peak read ~11 GFLOP/s.
            Calibration old = new Calibration(device.facts().fingerprint(), "old", 16L << 20, 1e9, 1e9, 1e9, 1e9, 11e9, 0, "then", "", null, false);
            java.nio.file.Files.writeString(dir.resolve(device.facts().fingerprint() + ".json"), gluelab.files.Json.write(old));
            // accepted even if busy: this test is about the method in the file name, and the build machine may be loaded
            Calibration fresh = new Calibrator(device, dir).calibrate(false, true);
            assertFalse(fresh.fromCache(), "measured again, not the older method's file");
            assertNotEquals(11e9, fresh.peakFlops());
            if (fresh.isBusy()) return; // a busy cached one is measured again by design (aCalibrationUnderLoad...)
            Calibration again = new Calibrator(device, dir).calibrate(false);
            assertTrue(again.fromCache(), "the new method's file is reused");
            assertEquals(fresh.copyMedian(), again.copyMedian());
        }
    }

    @Tag("slow") // measures the CPU copy bandwidth
    @Test
    void aMuchSlowerRecalibrationKeepsTheEarlierOneBesideItAndWarns(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (CpuDevice cpu = new CpuDevice(1)) {
            var device = small(cpu);
            String name = device.facts().fingerprint() + "-m" + Calibrator.METHOD;
            // A cached figure no CPU reaches (1 PB/s): any fresh measurement is far below it.
            Calibration fast = new Calibration(device.facts().fingerprint(), "quiet", 16L << 20, 1e15, 1e15, 1e15, 1e15, 1e12, 0, "earlier", "copy", null, false);
            java.nio.file.Files.writeString(dir.resolve(name + ".json"), gluelab.files.Json.write(fast));
            var err = new java.io.ByteArrayOutputStream();
            var saved = System.err;
            System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            Calibration fresh;
            try {
                fresh = new Calibrator(device, dir).calibrate(true, true);
            } finally {
                System.setErr(saved);
            }
            String warning = err.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(warning.contains("below the cached 1000000.0 GB/s") && warning.contains(name + ".previous.json"), warning);
            var previous = gluelab.files.Json.MAPPER.readValue(dir.resolve(name + ".previous.json").toFile(), Calibration.class);
            assertEquals(1e15, previous.copyMedian(), "the earlier calibration is kept, not lost");
            var now = gluelab.files.Json.MAPPER.readValue(dir.resolve(name + ".json").toFile(), Calibration.class);
            assertEquals(fresh.copyMedian(), now.copyMedian(), "the new measurement is the cache now");
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void buffersAreTheSizeTheDeviceAsksFor() {
        try (CpuDevice cpu = new CpuDevice(1)) {
            long own = cpu.capabilities().calibrationBytes();
            assertTrue(own >= 256L << 20 && own >= 4 * cpu.facts().lastLevelCacheBytes(), "the CPU asks for 4x its LLC, at least 256 MiB: " + own);
            var small = small(cpu);
            Calibration c = new Calibrator(small, null).measure();
            assertEquals(16L << 20, c.bufferBytes());
            assertTrue(c.copyMedian() > 0 && c.triadMedian() > 0, c.toString());
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void aCalibrationUnderLoadIsFlaggedNotCachedUnlessAcceptedAndMeasuredAgainWhenCachedFlagged(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/stat")), "needs Linux's CPU counters");
        try (CpuDevice cpu = new CpuDevice(1)) {
            var device = small(cpu);
            Calibrator calibrator = new Calibrator(device, dir);
            Calibration busy;
            int spinners;
            try (BusyMachine load = new BusyMachine()) {
                spinners = load.size();
                busy = calibrator.measure();
            }
            assertTrue(busy.isBusy(), "measured beside " + spinners + " spinning processes: " + busy.describe());
            assertTrue(busy.describe().contains("BUSY: "), busy.describe());
            assertTrue(busy.caveat().startsWith("calibration taken on a busy machine ("), busy.caveat());
            var err = new java.io.ByteArrayOutputStream();
            var saved = System.err;
            System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            try {
                assertSame(busy, calibrator.settle(busy, null, false));
            } finally {
                System.setErr(saved);
            }
            assertTrue(err.toString(java.nio.charset.StandardCharsets.UTF_8).contains("not cached"), err.toString());
            assertFalse(java.nio.file.Files.exists(calibrator.cacheFile()), "a busy calibration is not the device's figure");
            assertSame(busy, new Calibrator(device, dir).calibrate(false), "but it is this run's: the next lab here takes it instead of measuring again");
            calibrator.settle(busy, null, true);
            assertTrue(java.nio.file.Files.isRegularFile(calibrator.cacheFile()), "--accept-busy caches it");
            Calibration stored = gluelab.files.Json.MAPPER.readValue(calibrator.cacheFile().toFile(), Calibration.class);
            assertEquals(busy.busy(), stored.busy(), "the flag travels in the cached file");
            assertTrue(stored.isBusy());
            // The cached one is flagged: the next plain use measures again instead of dividing by it.
            err.reset();
            System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            Calibration next;
            try {
                next = calibrator.calibrate(false);
            } finally {
                System.setErr(saved);
            }
            assertFalse(next.fromCache(), "a flagged cached calibration is measured again");
            assertTrue(err.toString(java.nio.charset.StandardCharsets.UTF_8).contains("was taken on a busy machine"), err.toString());
        }
    }

    @Test
    void aCalibrationWithoutTheBusyFieldsReadsAsQuiet() throws Exception {
        String before = "{\"deviceFingerprint\":\"f\",\"deviceName\":\"cpu\",\"bufferBytes\":1,\"copyMedian\":3.6e10,\"copyBest\":3.7e10,"
                + "\"triadMedian\":1.7e10,\"triadBest\":1.8e10,\"peakFlops\":1e11,\"theoreticalBandwidth\":0,\"measuredAt\":\"then\",\"fromCache\":false}";
        Calibration c = gluelab.files.Json.MAPPER.readValue(before, Calibration.class);
        assertFalse(c.isBusy());
        assertEquals("", c.caveat());
        assertFalse(c.describe().contains("BUSY"));
    }
}
