package gluelab.backend.cuda;

import gluelab.device.Device;
import gluelab.device.Devices;
import org.junit.jupiter.api.*;

import java.util.Optional;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A class of tests on a real GPU: tagged {@code gpu}, the CUDA device opened once for the class as
 * {@link #device}, and every test skipped by an explicit assumption, with the reason, where no GPU is
 * usable (CI). docs/development.md gives the command that runs them on the GPU host.
 */
@Tag("gpu")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class GpuTest {
    protected Device device;

    private Optional<String> noGpu;

    @BeforeAll
    void openTheGpu() {
        noGpu = new CudaDeviceProvider().unavailableReason();
        if (noGpu.isEmpty()) device = Devices.open("cuda");
    }

    /** Each test is reported as skipped, with the reason, where no GPU is usable (CI). */
    @BeforeEach
    void needsAGpu() {
        assumeTrue(noGpu.isEmpty(), () -> "no usable GPU: " + noGpu.orElse(""));
    }

    @AfterAll
    void closeTheGpu() {
        if (device != null) device.close();
    }
}
