package gluelab.calibrate;

import gluelab.device.Capabilities;
import gluelab.device.DelegatingDevice;
import gluelab.device.cpu.CpuDevice;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class CalibratorTest {
    @Test
    void buffersAreTheSizeTheDeviceAsksFor() {
        try (CpuDevice cpu = new CpuDevice(1)) {
            long own = cpu.capabilities().calibrationBytes();
            assertTrue(own >= 256L << 20 && own >= 4 * cpu.facts().lastLevelCacheBytes(), "the CPU asks for 4x its LLC, at least 256 MiB: " + own);
            var small = new DelegatingDevice(cpu) {
                @Override public Capabilities capabilities() {
                    Capabilities c = inner.capabilities();
                    return new Capabilities(c.dtypes(), c.graphReplay(), c.peakFlops(), 16L << 20, c.placements());
                }
            };
            Calibration c = new Calibrator(small, null).measure();
            assertEquals(16L << 20, c.bufferBytes());
            assertTrue(c.copyMedian() > 0 && c.triadMedian() > 0, c.toString());
        }
    }
}
