package gluelab.calibrate;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class DisturbanceTest {
    @Test
    void theLoadedAndQuietVmCalibrationsOfTheProbe() {
        // issue 23: a loaded 2-core VM read copy 27.4, triad 4.8 GB/s; quiet, 36.0 and 17.3.
        assertTrue(Disturbance.reason(27.4e9, 4.8e9, 0.01, 0.01, -1, 2).startsWith("triad 4.8 GB/s is 18% of copy 27.4 GB/s"));
        assertEquals("", Disturbance.reason(36.0e9, 17.3e9, 0.004, 0.006, 0.1, 2));
    }

    @Test
    void spreadAndOtherProcessesEachSayBusy() {
        assertEquals("copy noise 8.0%", Disturbance.reason(36e9, 17e9, 0.08, 0.01, -1, 2));
        assertEquals("triad noise 12.0%", Disturbance.reason(36e9, 17e9, 0.01, 0.12, -1, 2));
        assertEquals("other processes used 1.6 of 2 cores", Disturbance.reason(36e9, 17e9, 0.01, 0.01, 1.6, 2));
        assertEquals("", Disturbance.reason(36e9, 17e9, -1, -1, -1, 2), "unknown spread and load say nothing");
    }
}
