package gluelab.sweep;

import gluelab.device.Devices;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The devices a local sweep runs one worker each on, as written after --devices: all | 0,1 | cuda:0,cuda:1 | cpu,cpu. */
public final class DeviceList {
    private DeviceList() {}

    public static List<String> parse(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("--devices is empty; write all, 0,1 or cpu,cpu");
        String t = text.trim().toLowerCase(Locale.ROOT);
        int gpus = t.equals("all") || t.matches(".*(\\d|cuda).*") ? Devices.count("cuda") : 0;
        if (t.equals("all")) {
            if (gpus == 0) throw new IllegalArgumentException("--devices all: no usable GPU here; use --devices cpu (or cpu,cpu for two CPU workers)");
            List<String> out = new ArrayList<>();
            for (int i = 0; i < gpus; i++) out.add("cuda:" + i);
            return out;
        }
        List<String> out = new ArrayList<>();
        for (String part : t.split(",")) {
            String p = part.trim();
            if (p.equals("cpu")) {
                out.add("cpu");
                continue;
            }
            String n = p.startsWith("cuda:") ? p.substring(5) : p;
            int ordinal;
            try {
                ordinal = Integer.parseInt(n);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--devices: '" + part.trim() + "' is not a GPU number, cuda:N or cpu");
            }
            if (ordinal < 0 || ordinal >= gpus) {
                throw new IllegalArgumentException("--devices: GPU " + ordinal + " does not exist here (" + gpus + " usable GPU" + (gpus == 1 ? "" : "s") + ")");
            }
            String sel = "cuda:" + ordinal;
            if (out.contains(sel)) throw new IllegalArgumentException("--devices: GPU " + ordinal + " is listed twice; one worker per GPU");
            out.add(sel);
        }
        return out;
    }
}
