package gluelab.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** The trace import's per-op calls, counted as torch's key_averages() counts them. */
class OpCallsTest {
    static String op(String name, int tid, double ts, double dur) {
        return String.format("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{}}", name, tid, ts, dur);
    }

    @Test void anOpWhoseOnlyChildHasItsNameIsOneCallAndOtherNestingIsKept(@TempDir Path dir) throws Exception {
        String events = String.join(",",
                op("aten::div_", 1, 100, 10), op("aten::div_", 1, 101, 8),              // an overload re-dispatch: one call, the parent's 10 us
                op("aten::add", 1, 200, 10), op("aten::add", 1, 201, 3), op("aten::mul", 1, 205, 3), // two children: both adds count
                op("aten::div_", 2, 100.5, 4),                                          // another thread at the same time: not a child
                op("aten::copy_", 1, 300, 5), op("aten::copy_", 1, 300, 5),            // a child ending with its parent
                op("aten::sum", 1, 400, 1.5));
        Path trace = Files.writeString(dir.resolve("t.json"), "{\"traceEvents\":[" + events + "]}");
        Map<String, Trace.CpuOpTime> calls = TraceReader.read(trace).cpuOps().stream().collect(Collectors.toMap(Trace.CpuOpTime::name, c -> c));
        assertEquals(2, calls.get("aten::div_").count(), "the re-dispatch is one call; the other thread's is its own");
        assertEquals(14, calls.get("aten::div_").totalUs(), 1e-9);
        assertEquals(2, calls.get("aten::add").count());
        assertEquals(13, calls.get("aten::add").totalUs(), 1e-9);
        assertEquals(1, calls.get("aten::mul").count());
        assertEquals(1, calls.get("aten::copy_").count());
        assertEquals(1, calls.get("aten::sum").count());
        assertEquals(1.5, calls.get("aten::sum").totalUs(), 1e-9);
    }
}
