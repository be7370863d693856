package gluelab.backend.cuda;

import gluelab.device.Device;
import gluelab.device.DeviceProvider;
import jcuda.driver.JCudaDriver;

import java.util.Optional;

/** The "cuda" device kind: usable when the JCuda natives load, the driver initialises and a GPU exists. */
public final class CudaDeviceProvider implements DeviceProvider {
    private static volatile Optional<String> reason;

    @Override public String kind() { return "cuda"; }

    @Override public Optional<String> unavailableReason() {
        Optional<String> r = reason;
        if (r == null) {
            r = probe();
            reason = r;
        }
        return r;
    }

    private static Optional<String> probe() {
        try {
            JCudaDriver.setExceptionsEnabled(false);
            int rc = JCudaDriver.cuInit(0);
            if (rc != 0) return Optional.of("the CUDA driver did not initialise (" + jcuda.driver.CUresult.stringFor(rc) + ")");
            int[] count = new int[1];
            rc = JCudaDriver.cuDeviceGetCount(count);
            if (rc != 0 || count[0] == 0) return Optional.of("no GPU found");
            return Optional.empty();
        } catch (Throwable t) {
            // JCuda's message is a long report; keep the line that names the missing library.
            if (String.valueOf(t.getMessage()).contains("libcuda.so")) return Optional.of("no NVIDIA driver (libcuda.so.1 not found)");
            String detail = String.valueOf(t.getMessage()).lines().filter(l -> l.contains("cannot open shared object") || l.contains(".so"))
                    .map(String::strip).findFirst().orElse(String.valueOf(t.getMessage()).lines().findFirst().orElse(""));
            return Optional.of("the NVIDIA driver library could not be loaded (" + detail + ")");
        } finally {
            try {
                JCudaDriver.setExceptionsEnabled(true);
            } catch (Throwable ignored) {
                // The natives did not load; nothing to restore.
            }
        }
    }

    @Override public Device open(int ordinal) { return new CudaDevice(ordinal); }

    @Override public int count() {
        if (unavailableReason().isPresent()) return 0;
        int[] count = new int[1];
        return JCudaDriver.cuDeviceGetCount(count) == 0 ? count[0] : 0;
    }
}
