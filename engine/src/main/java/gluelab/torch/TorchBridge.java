package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The user's Python running gluelab's harness ({@code gluelab/torch/harness.py}, shipped in the jar):
 * one JSON request per line on its stdin, one reply per line on its stdout, its stderr kept (the
 * last lines) for error messages. Only torch is needed on the Python side.
 */
public final class TorchBridge implements AutoCloseable {
    /** Python's json writes Infinity and NaN (a median's noise from one sample): read them as numbers. */
    private static final ObjectMapper MAPPER = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final int STDERR_LINES = 40;

    private final Process process;
    private final BufferedWriter toHarness;
    /** Reply lines, read by a thread of their own so a waiting call can be interrupted; END once stdout closes. */
    private final java.util.concurrent.BlockingQueue<String> replies = new java.util.concurrent.LinkedBlockingQueue<>();
    private static final String END = new String("end of the harness's output");
    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final TorchVersions versions;
    private final String python;
    private final String device;
    private final Thread drain;
    /** The last progress line's detail of the call in flight: what the harness was doing should it die or hang. */
    private volatile String doing = "";
    /** Set when the bridge ended a harness that wrote nothing for too long: how it ended, for the error. */
    private volatile String hung = "";

    /** What a call listens to besides its reply. */
    public record Watch(gluelab.progress.Progress progress, java.util.function.Consumer<JsonNode> parts, java.time.Duration silence) {
        public static final Watch NONE = new Watch(gluelab.progress.Progress.NONE, p -> {}, null);

        /**
         * {@code progress}: the harness's progress lines; {@code parts}: each {@code "part"} a progress line carries (a row
         * done, kept should the process die before its reply); {@code silence}: how long the harness may write nothing
         * before it is taken for hung in C code and ended (null: forever).
         */
        public Watch {}
    }

    private TorchBridge(Process process, String python, String device) {
        this.process = process;
        this.python = python;
        this.device = device;
        this.toHarness = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        BufferedReader fromHarness = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(() -> {
            try {
                for (String line; (line = fromHarness.readLine()) != null; ) replies.add(line);
            } catch (IOException ignored) {
                // treated as the harness ending
            }
            replies.add(END);
        }, "torch-harness-replies");
        reader.setDaemon(true);
        reader.start();
        drain = new Thread(this::drainStderr, "torch-harness-stderr");
        drain.setDaemon(true);
        drain.start();
        // A stopped JVM (SIGTERM, a timeout) ends the harness and its compile workers: left running they would use the GPU under the next measurement.
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                process.descendants().forEach(ProcessHandle::destroy);
                process.destroy();
            }, "torch-harness-shutdown"));
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already stopping: the harness ends with its stdin
        }
        JsonNode hello = readReply("starting the torch harness", null);
        if (!hello.path("ok").asBoolean()) {
            close();
            TorchException.Kind kind = switch (hello.path("error").asText()) {
                case "missing" -> TorchException.Kind.MISSING;
                case "too_old" -> TorchException.Kind.TOO_OLD;
                case "no_cuda" -> TorchException.Kind.NO_CUDA;
                default -> TorchException.Kind.FAILED;
            };
            boolean otherPython = kind == TorchException.Kind.MISSING || kind == TorchException.Kind.TOO_OLD;
            throw new TorchException(kind, hello.path("message").asText() + (otherPython ? OTHER_PYTHON : ""), null);
        }
        versions = new TorchVersions(hello.path("python").asText(), hello.path("executable").asText(), hello.path("torch").asText(),
                hello.path("cuda").asText(), hello.path("triton").asText(), hello.path("gpu").asText(), device,
                hello.path("compile").asBoolean(), hello.path("compile_reason").asText(), hello.path("threads").asInt());
    }

    /** The way out when the Python cannot serve: name another one. */
    static final String OTHER_PYTHON = " (use --python PATH for a Python with torch; in a notebook, lab.torch(PATH))";

    /**
     * Starts {@code python} (a path or a name on PATH) with the harness on {@code device} ("cpu" or
     * "cuda"). TORCH_LOGS defaults to recompiles and graph breaks so compile accounting sees them;
     * Inductor's cache defaults to {@link #inductorCache()}, so a second run loads compiled graphs.
     */
    public static TorchBridge start(String python, String device) {
        if (!device.equals("cpu") && !device.equals("cuda")) throw new IllegalArgumentException("torch device must be cpu or cuda, got " + device);
        Path harness = extractHarness();
        // -B: no __pycache__ beside the harness, so its temp folder goes when the JVM exits
        ProcessBuilder pb = new ProcessBuilder(python, "-u", "-B", harness.toString(), device);
        Map<String, String> env = pb.environment();
        env.putIfAbsent("TORCH_LOGS", "recompiles,graph_breaks");
        env.put("TORCHINDUCTOR_CACHE_DIR", inductorCache().toString());
        env.put("PYTHONUNBUFFERED", "1");
        try {
            return new TorchBridge(pb.start(), python, device);
        } catch (TorchException e) {
            // A --python that is not Python ends before the harness says hello.
            if (e.kind() != TorchException.Kind.CRASHED) throw e;
            // Stopped as it started (Ctrl-C, a timeout's SIGTERM): the Python is fine, so not "is it a Python?".
            if (e.getMessage().contains(" was stopped by SIG")) throw e;
            throw new TorchException(TorchException.Kind.MISSING, "'" + python + "' did not start gluelab's torch harness; is it a Python? ("
                    + e.getMessage().replace("starting the torch harness: ", "") + ")" + OTHER_PYTHON, null);
        } catch (IOException e) {
            throw new TorchException(TorchException.Kind.MISSING, "cannot start Python '" + python + "' for the torch bridge: " + e.getMessage()
                    + OTHER_PYTHON, null);
        }
    }

    public TorchVersions versions() { return versions; }

    /** A fresh harness of the same Python on the same device (this one died; the caller closes the new one). */
    public TorchBridge restarted() { return start(python, device); }

    /** A test run's own Inductor cache (one temp folder the whole suite shares), set before any harness starts. */
    public static final String INDUCTOR_CACHE_PROPERTY = "gluelab.torch.inductorCache";

    /**
     * Where torch.compile's Inductor keeps compiled graphs and kernels: $TORCHINDUCTOR_CACHE_DIR, else
     * the {@value #INDUCTOR_CACHE_PROPERTY} system property, else in gluelab's cache.
     */
    public static Path inductorCache() {
        String env = System.getenv("TORCHINDUCTOR_CACHE_DIR");
        if (env != null && !env.isBlank()) return Path.of(env);
        String prop = System.getProperty(INDUCTOR_CACHE_PROPERTY);
        return prop != null && !prop.isBlank() ? Path.of(prop) : gluelab.files.Locations.cacheDir().resolve("torchinductor");
    }

    public String device() { return device; }

    public boolean alive() { return process.isAlive(); }

    /** The Python process's id (a confirmation records it, and its test kills one). */
    public long pid() { return process.pid(); }

    /** The Python process (for tests and for waiting on it). */
    Process process() { return process; }

    /** Sends one request and returns its reply; a failed reply throws with the Python side's message. */
    public JsonNode call(ObjectNode request, String what) { return call(request, what, gluelab.progress.Progress.NONE); }

    /**
     * As {@link #call(ObjectNode, String)}; progress lines the harness writes before the reply
     * ({@code {"progress": TASK, "done": N, "total": M, "detail": ...}}) go to {@code progress}.
     */
    public JsonNode call(ObjectNode request, String what, gluelab.progress.Progress progress) {
        return call(request, what, new Watch(progress, p -> {}, null));
    }

    /**
     * As {@link #call(ObjectNode, String, gluelab.progress.Progress)}, with the parts streamed before the reply and
     * a silence limit: a harness that writes nothing for longer is ended, and the call fails as a crash.
     */
    public synchronized JsonNode call(ObjectNode request, String what, Watch watch) {
        gluelab.progress.Progress progress = watch.progress();
        doing = "";
        if (!process.isAlive()) throw crashed(what);
        try {
            toHarness.write(MAPPER.writeValueAsString(request));
            toHarness.write('\n');
            toHarness.flush();
        } catch (IOException e) {
            throw crashed(what);
        }
        JsonNode reply = readReply(what, watch.silence());
        while (reply.has("progress")) {
            doing = reply.path("detail").asText();
            if (reply.has("part")) watch.parts().accept(reply.path("part"));
            progress.update(reply.path("progress").asText(), reply.path("done").asLong(), reply.path("total").asLong(), reply.path("detail").asText());
            reply = readReply(what, watch.silence());
        }
        if (!reply.path("ok").asBoolean()) {
            boolean oom = reply.path("error").asText().equals("oom");
            throw new TorchException(oom ? TorchException.Kind.OOM : TorchException.Kind.FAILED,
                    what + ": " + (oom ? "CUDA out of memory in torch: " : "") + reply.path("message").asText(), reply.path("traceback").asText());
        }
        return reply;
    }

    public static ObjectNode request(String cmd) { return MAPPER.createObjectNode().put("cmd", cmd); }

    /**
     * The next reply. An interrupt (the notebook's stop button) ends the harness, as the kernel worker
     * is ended: torch cannot be stopped mid-kernel from outside, and the next call starts a fresh one.
     */
    private JsonNode readReply(String what, java.time.Duration silence) {
        String line;
        try {
            line = silence == null ? replies.take() : replies.poll(silence.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null) {
                // Stuck where the harness's own limits cannot reach (C code that never returns to Python): only ending it stops it.
                hung = "was ended by gluelab after writing nothing for " + silence.toSeconds() + " s (stuck in C code, where the harness's step limit cannot stop it)";
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw crashed(what);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException(what + ": interrupted; the torch harness was stopped (the next call starts a fresh one)");
        }
        if (line == END) throw crashed(what);
        try {
            return MAPPER.readTree(line);
        } catch (IOException e) {
            throw new TorchException(TorchException.Kind.CRASHED, what + ": the torch harness wrote a line that is not JSON: " + line, null);
        }
    }

    private TorchException crashed(String what) {
        return new TorchException(TorchException.Kind.CRASHED, what + ": the torch harness process " + ended(), null);
    }

    /**
     * How the harness's process ended, for an error: its exit code, what it was doing (its last progress line) and
     * its last lines on stderr, e.g. "exited with code 9 during eager @ 16 tokens, writing nothing on stderr".
     */
    public String ended() {
        String how = hung;
        try {
            if (how.isEmpty()) how = process.waitFor(2, TimeUnit.SECONDS) ? exited(process.exitValue()) : "ended";
            drain.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String tail = stderrTail();
        return how + (doing.isEmpty() ? "" : " during " + doing) + (tail.isBlank() ? ", writing nothing on stderr" : "; its last output:\n" + tail);
    }

    /** Java reports a process a signal ended as 128 + the signal's number; Ctrl-C or a kill reaches the harness with gluelab. */
    private static final Map<Integer, String> STOP_SIGNALS = Map.of(129, "SIGHUP", 130, "SIGINT", 137, "SIGKILL", 143, "SIGTERM");

    static String exited(int code) {
        String signal = STOP_SIGNALS.get(code);
        return signal == null ? "exited with code " + code : "was stopped by " + signal + " (exit code " + code + ")";
    }

    /** The last lines the Python side wrote to stderr. */
    public String stderrTail() {
        synchronized (stderrTail) {
            return String.join("\n", stderrTail);
        }
    }

    private void drainStderr() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                synchronized (stderrTail) {
                    stderrTail.addLast(l);
                    while (stderrTail.size() > STDERR_LINES) stderrTail.removeFirst();
                }
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    /** The harness and the Python files it imports, written side by side into one temp folder. */
    private static final java.util.List<String> HARNESS_FILES = java.util.List.of("harness.py", "model_subject.py", "model_variants.py", "model_checks.py");

    private static Path extractHarness() {
        try {
            Path dir = Files.createTempDirectory("gluelab-torch-");
            dir.toFile().deleteOnExit();
            for (String name : HARNESS_FILES) {
                try (InputStream in = TorchBridge.class.getResourceAsStream("/gluelab/torch/" + name)) {
                    if (in == null) throw new IllegalStateException("gluelab/torch/" + name + " is missing from gluelab's jar");
                    Path file = dir.resolve(name);
                    Files.write(file, in.readAllBytes());
                    file.toFile().deleteOnExit();
                }
            }
            return dir.resolve(HARNESS_FILES.getFirst());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the torch harness to a temp folder", e);
        }
    }

    @Override public void close() {
        if (process.isAlive()) {
            try {
                toHarness.write("{\"cmd\":\"exit\"}\n");
                toHarness.flush();
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException ignored) {
                // ending it anyway
            }
            process.destroy();
        }
    }
}
