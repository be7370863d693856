package gluelab.backend.cuda.compile;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The messages between gluelab and a compile worker process ({@link CompileWorker}), framed on the
 * worker's stdin and stdout as length-prefixed fields (a cubin goes back as raw bytes). The worker
 * first sends a {@link Hello}; then each {@link Job} gets one {@link Result}. A job carries its
 * source only the first time a worker sees it; later jobs name it by key.
 */
final class CompileProtocol {
    static final byte JOB = 1, EXIT = 0;
    static final byte OK = 0, COMPILE_ERROR = 1, FAILED = 2;

    private CompileProtocol() {}

    /** The worker's first message: its compiler (ok) or why it cannot compile. */
    record Hello(boolean ok, String text, long pid) {
        void write(DataOutputStream out) throws IOException {
            out.writeBoolean(ok);
            string(out, text);
            out.writeLong(pid);
            out.flush();
        }

        static Hello read(DataInputStream in) throws IOException { return new Hello(in.readBoolean(), string(in), in.readLong()); }
    }

    /** One compile: {@code source} is null when the worker already holds the source of {@code sourceKey}. */
    record Job(long id, String sourceKey, SourceUnit source, String arch, List<String> options) {
        void write(DataOutputStream out) throws IOException {
            out.writeByte(JOB);
            out.writeLong(id);
            string(out, sourceKey);
            out.writeBoolean(source != null);
            if (source != null) {
                string(out, source.name());
                string(out, source.text());
                out.writeInt(source.headers().size());
                for (var h : source.headers().entrySet()) {
                    string(out, h.getKey());
                    string(out, h.getValue());
                }
            }
            string(out, arch);
            out.writeInt(options.size());
            for (String o : options) string(out, o);
            out.flush();
        }

        /** The next job, or null when the parent asked the worker to exit. */
        static Job read(DataInputStream in) throws IOException {
            if (in.readByte() == EXIT) return null;
            long id = in.readLong();
            String key = string(in);
            SourceUnit source = null;
            if (in.readBoolean()) {
                String name = string(in), text = string(in);
                int headers = in.readInt();
                java.util.Map<String, String> h = new java.util.TreeMap<>();
                for (int i = 0; i < headers; i++) h.put(string(in), string(in));
                source = new SourceUnit(name, text, h);
            }
            String arch = string(in);
            int n = in.readInt();
            List<String> options = new ArrayList<>(n);
            for (int i = 0; i < n; i++) options.add(string(in));
            return new Job(id, key, source, arch, options);
        }
    }

    /** A job's outcome: the cubin (OK), or the compiler's log (COMPILE_ERROR), or what else went wrong (FAILED). */
    record Result(long id, byte status, double millis, byte[] cubin, String message) {
        static Result ok(long id, double millis, byte[] cubin) { return new Result(id, OK, millis, cubin, ""); }

        static Result error(long id, byte status, double millis, String message) { return new Result(id, status, millis, new byte[0], message); }

        void write(DataOutputStream out) throws IOException {
            out.writeLong(id);
            out.writeByte(status);
            out.writeDouble(millis);
            out.writeInt(cubin.length);
            out.write(cubin);
            string(out, message);
            out.flush();
        }

        static Result read(DataInputStream in) throws IOException {
            long id = in.readLong();
            byte status = in.readByte();
            double millis = in.readDouble();
            byte[] cubin = new byte[in.readInt()];
            in.readFully(cubin);
            return new Result(id, status, millis, cubin, string(in));
        }
    }

    static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    static String string(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
