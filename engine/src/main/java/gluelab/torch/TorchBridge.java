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
    private final String device;
    private final Thread drain;

    private TorchBridge(Process process, String device) {
        this.process = process;
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
        JsonNode hello = readReply("starting the torch harness");
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
                hello.path("compile").asBoolean(), hello.path("compile_reason").asText());
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
            return new TorchBridge(pb.start(), device);
        } catch (TorchException e) {
            // A --python that is not Python ends before the harness says hello.
            if (e.kind() != TorchException.Kind.CRASHED) throw e;
            throw new TorchException(TorchException.Kind.MISSING, "'" + python + "' did not start gluelab's torch harness; is it a Python? ("
                    + e.getMessage().replace("starting the torch harness: ", "") + ")" + OTHER_PYTHON, null);
        } catch (IOException e) {
            throw new TorchException(TorchException.Kind.MISSING, "cannot start Python '" + python + "' for the torch bridge: " + e.getMessage()
                    + OTHER_PYTHON, null);
        }
    }

    public TorchVersions versions() { return versions; }

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
    public synchronized JsonNode call(ObjectNode request, String what, gluelab.progress.Progress progress) {
        if (!process.isAlive()) throw crashed(what);
        try {
            toHarness.write(MAPPER.writeValueAsString(request));
            toHarness.write('\n');
            toHarness.flush();
        } catch (IOException e) {
            throw crashed(what);
        }
        JsonNode reply = readReply(what);
        while (reply.has("progress")) {
            progress.update(reply.path("progress").asText(), reply.path("done").asLong(), reply.path("total").asLong(), reply.path("detail").asText());
            reply = readReply(what);
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
    private JsonNode readReply(String what) {
        String line;
        try {
            line = replies.take();
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
        String code = "";
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) code = " with exit code " + process.exitValue();
            drain.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String tail = stderrTail();
        return new TorchException(TorchException.Kind.CRASHED, what + ": the torch harness process ended" + code
                + (tail.isBlank() ? ", writing nothing on stderr" : "; its last output:\n" + tail), null);
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
