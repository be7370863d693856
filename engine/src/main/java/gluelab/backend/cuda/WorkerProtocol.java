package gluelab.backend.cuda;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import gluelab.device.Buffer;
import gluelab.timing.Measurement;
import gluelab.timing.TimingConfig;

import java.util.List;

/**
 * The messages between gluelab and its kernel worker process: one JSON object per line, a
 * request on the worker's stdin, its reply on the worker's stdout.
 */
final class WorkerProtocol {
    static final String COMPILE = "compile", RUN = "run", TIME = "time", RELEASE = "release", EXIT = "exit";
    /** Reply errors: the kernel faulted (the worker then exits), a compile error, anything else. */
    static final String FAULT = "fault", COMPILE_ERROR = "compile", FAILED = "failed";

    // Summaries hold NaN where a statistic is undefined (one sample): written and read as NaN.
    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    private WorkerProtocol() {}

    /** One kernel argument: a buffer (IPC handle and size) or a scalar of a C type. */
    record Arg(String kind, String handle, long bytes, long integer, double real) {
        static Arg buffer(String handle, long bytes) { return new Arg("buffer", handle, bytes, 0, 0); }

        static Arg scalar(String kind, long integer, double real) { return new Arg(kind, null, 0, integer, real); }

        /** Argument {@code index} of {@code kernel} as a message: a Buffer of this device, Long, Integer, Float or Double. */
        static Arg of(Object o, int index, String kernel, CudaDevice device) {
            return switch (o) {
                case CudaBuffer b when b.device() == device -> buffer(b.ipcHandle(), b.spec().bytes());
                case Buffer b -> throw new IllegalArgumentException("argument " + index + " of " + kernel + ": buffer " + b.spec()
                        + " does not belong to " + device.id());
                case Long v -> scalar("i64", v, 0);
                case Integer v -> scalar("i32", v, 0);
                case Float v -> scalar("f32", 0, v);
                case Double v -> scalar("f64", 0, v);
                case null, default -> throw new IllegalArgumentException("argument " + index + " of " + kernel
                        + " must be a Buffer, Long, Integer, Float or Double, got " + (o == null ? "null" : o.getClass().getSimpleName()));
            };
        }
    }

    /** A request; fields an op does not use are null or 0. */
    record Request(String op, String kernel, String name, String source, int grid, int block, List<Arg> args, String label,
                   long bytes, TimingConfig timing, String handle) {
        static Request compile(String kernel, String name, String source) {
            return new Request(COMPILE, kernel, name, source, 0, 0, null, null, 0, null, null);
        }

        static Request run(String kernel, int grid, int block, List<Arg> args) {
            return new Request(RUN, kernel, null, null, grid, block, args, null, 0, null, null);
        }

        static Request time(String kernel, int grid, int block, List<Arg> args, String label, long bytes, TimingConfig timing) {
            return new Request(TIME, kernel, null, null, grid, block, args, label, bytes, timing, null);
        }

        static Request release(String handle) { return new Request(RELEASE, null, null, null, 0, 0, null, null, 0, null, handle); }

        static Request exit() { return new Request(EXIT, null, null, null, 0, 0, null, null, 0, null, null); }
    }

    /** A reply: ok, or an error kind with its message (and the compiler's log for a compile error). */
    record Reply(boolean ok, String error, String message, String log, double compileMillis, String origin,
                 Measurement normal, Measurement graph) {
        static Reply done() { return new Reply(true, null, null, null, 0, null, null, null); }

        static Reply compiled(double millis, String origin) { return new Reply(true, null, null, null, millis, origin, null, null); }

        static Reply timed(Measurement normal, Measurement graph) { return new Reply(true, null, null, null, 0, null, normal, graph); }

        static Reply failed(String error, String message, String log) { return new Reply(false, error, message, log, 0, null, null, null); }
    }

    static String line(Object message) {
        try {
            return MAPPER.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a worker message: " + e.getMessage(), e);
        }
    }

    static <T> T read(String line, Class<T> type) {
        try {
            return MAPPER.readValue(line, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unreadable worker message (" + e.getOriginalMessage() + "): "
                    + (line.length() > 200 ? line.substring(0, 200) + "..." : line), e);
        }
    }
}
