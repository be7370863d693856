package gluelab.cli;

import gluelab.device.Device;
import gluelab.device.Devices;
import picocli.CommandLine.Option;

/** --device, shared by the commands that run things. */
public final class DeviceOptions {
    @Option(names = "--device", defaultValue = "auto", description = "auto | cpu | cuda[:N] (default: ${DEFAULT-VALUE}; auto takes a GPU when usable, else the CPU)")
    public String device;

    public Device open() { return Devices.open(device); }
}
