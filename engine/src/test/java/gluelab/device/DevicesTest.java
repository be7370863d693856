package gluelab.device;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class DevicesTest {
    @Test
    void cpuOpensAndReportsFacts() {
        try (Device d = Devices.open("cpu")) {
            assertEquals("cpu", d.id());
            assertTrue(d.facts().cores() >= 1);
            assertTrue(d.facts().lastLevelCacheBytes() > 0);
            assertTrue(d.availableMemory() > 0);
            assertFalse(d.facts().fingerprint().isBlank());
        }
    }

    @Test
    void autoFallsBackToTheCpuAndSaysWhyWhenAGpuBackendIsUnusable() {
        List<String> notices = new ArrayList<>();
        try (Device d = Devices.open("auto", notices::add)) {
            if (d.id().equals("cpu")) {
                // Either no GPU backend is installed, or it said why it is unusable.
                boolean gpuBackend = Devices.providers().stream().anyMatch(p -> !p.kind().equals("cpu"));
                assertEquals(gpuBackend, !notices.isEmpty(), notices.toString());
            }
        }
    }

    @Test
    void askingForAnUnavailableDeviceIsBadInputThatSaysWhy() {
        var cuda = Devices.providers().stream().filter(p -> p.kind().equals("cuda")).findFirst().orElseThrow();
        org.junit.jupiter.api.Assumptions.assumeTrue(cuda.unavailableReason().isPresent(), "this machine has a GPU");
        var e = assertThrows(IllegalArgumentException.class, () -> Devices.open("cuda"));
        assertTrue(e.getMessage().startsWith("device 'cuda' is unavailable: ") && !e.getMessage().contains("Error:"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    @Test
    void badSelectorsListTheKnownDevices() {
        var e = assertThrows(IllegalArgumentException.class, () -> Devices.open("tpu"));
        assertTrue(e.getMessage().contains("unknown device 'tpu'") && e.getMessage().contains("cpu"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Devices.open("cuda:x"));
        assertThrows(IllegalArgumentException.class, () -> Devices.open("cpu:1"));
    }
}
