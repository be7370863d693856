package gluelab.backend.cuda;

import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.*;

/**
 * NVML through the JDK's foreign-function API: SM and memory clocks, clock-event (throttle)
 * reasons, and the other processes on the GPU. Absent NVML, every query says so instead of failing.
 */
final class Nvml {
    static final int CLOCK_SM = 1, CLOCK_MEM = 2;
    private static final int ERROR_INSUFFICIENT_SIZE = 7;
    private static final long PROCESS_INFO_BYTES = 24;

    private final MethodHandle clock, maxClock, reasons, processes, busWidth;
    private final MethodHandle utilization;
    private final MemorySegment device;

    private Nvml(SymbolLookup lib, String pciBusId) throws Throwable {
        Linker l = Linker.nativeLinker();
        MethodHandle init = l.downcallHandle(lib.find("nvmlInit_v2").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
        MethodHandle handle = l.downcallHandle(lib.find("nvmlDeviceGetHandleByPciBusId_v2").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        clock = l.downcallHandle(lib.find("nvmlDeviceGetClockInfo").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        maxClock = l.downcallHandle(lib.find("nvmlDeviceGetMaxClockInfo").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        MemorySegment r = lib.find("nvmlDeviceGetCurrentClocksEventReasons").or(() -> lib.find("nvmlDeviceGetCurrentClocksThrottleReasons")).orElseThrow();
        reasons = l.downcallHandle(r, FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        processes = l.downcallHandle(lib.find("nvmlDeviceGetComputeRunningProcesses_v3").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        busWidth = l.downcallHandle(lib.find("nvmlDeviceGetMemoryBusWidth").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        utilization = lib.find("nvmlDeviceGetUtilizationRates").map(f -> l.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS))).orElse(null);
        int rc = (int) init.invokeExact();
        if (rc != 0) throw new IllegalStateException("nvmlInit failed: " + rc);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            rc = (int) handle.invokeExact(a.allocateFrom(pciBusId), out);
            if (rc != 0) throw new IllegalStateException("nvmlDeviceGetHandleByPciBusId(" + pciBusId + ") failed: " + rc);
            device = out.get(ADDRESS, 0);
        }
    }

    /**
     * NVML's view of the CUDA device with this PCI bus id. NVML numbers GPUs by the whole machine,
     * CUDA by what CUDA_VISIBLE_DEVICES lets it see: an index would read another GPU's clocks.
     */
    static Optional<Nvml> open(String pciBusId) {
        for (String name : new String[]{"libnvidia-ml.so.1", "libnvidia-ml.so"}) {
            try {
                return Optional.of(new Nvml(SymbolLookup.libraryLookup(name, Arena.global()), pciBusId));
            } catch (Throwable ignored) {
                // Try the next name.
            }
        }
        for (String dir : new String[]{"/usr/lib/x86_64-linux-gnu", "/usr/local/nvidia/lib64", "/usr/lib64"}) {
            Path p = Path.of(dir, "libnvidia-ml.so.1");
            if (!Files.exists(p)) continue;
            try {
                return Optional.of(new Nvml(SymbolLookup.libraryLookup(p, Arena.global()), pciBusId));
            } catch (Throwable ignored) {
                // Not loadable.
            }
        }
        return Optional.empty();
    }

    private int uint(MethodHandle h, int arg) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            int rc = (int) h.invokeExact(device, arg, out);
            return rc == 0 ? out.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    int clockMHz(int type) { return uint(clock, type); }

    int maxClockMHz(int type) { return uint(maxClock, type); }

    int memoryBusWidthBits() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            return (int) busWidth.invokeExact(device, out) == 0 ? out.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** GPU utilisation in percent over NVML's last sample period (struct {uint gpu; uint memory}), or -1. */
    int utilizationPercent() {
        if (utilization == null) return -1;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(8, 4);
            return (int) utilization.invokeExact(device, out) == 0 ? out.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    long clockEventReasons() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG);
            return (int) reasons.invokeExact(device, out) == 0 ? out.get(JAVA_LONG, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** PIDs of compute processes on the GPU other than this one. */
    java.util.List<Long> otherProcesses() {
        long self = ProcessHandle.current().pid();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment count = a.allocate(JAVA_INT);
            count.set(JAVA_INT, 0, 0);
            int rc = (int) processes.invokeExact(device, count, MemorySegment.NULL);
            int n = count.get(JAVA_INT, 0);
            if (rc != 0 && rc != ERROR_INSUFFICIENT_SIZE) return java.util.List.of();
            if (n == 0) return java.util.List.of();
            n += 4;
            count.set(JAVA_INT, 0, n);
            MemorySegment infos = a.allocate(PROCESS_INFO_BYTES * n, 8);
            if ((int) processes.invokeExact(device, count, infos) != 0) return java.util.List.of();
            java.util.List<Long> pids = new java.util.ArrayList<>();
            for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                long pid = Integer.toUnsignedLong(infos.get(JAVA_INT, i * PROCESS_INFO_BYTES));
                if (pid != self) pids.add(pid);
            }
            return pids;
        } catch (Throwable t) {
            return java.util.List.of();
        }
    }

    Map<String, String> snapshot() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("sm_clock_mhz", Integer.toString(clockMHz(CLOCK_SM)));
        m.put("mem_clock_mhz", Integer.toString(clockMHz(CLOCK_MEM)));
        m.put("clock_event_reasons", "0x" + Long.toHexString(clockEventReasons()));
        m.put("other_gpu_processes", otherProcesses().toString());
        m.put("gpu_utilization_percent", Integer.toString(utilizationPercent()));
        return m;
    }
}
