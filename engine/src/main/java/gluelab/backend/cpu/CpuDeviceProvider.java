package gluelab.backend.cpu;

import gluelab.device.Device;
import gluelab.device.DeviceProvider;

import java.util.Optional;

public final class CpuDeviceProvider implements DeviceProvider {
    @Override public String kind() { return "cpu"; }

    @Override public Optional<String> unavailableReason() { return Optional.empty(); }

    @Override public Device open(int ordinal) {
        if (ordinal != 0) throw new IllegalArgumentException("device 'cpu:" + ordinal + "' does not exist; the CPU is cpu (cpu:0)");
        return new CpuDevice(Runtime.getRuntime().availableProcessors());
    }
}
