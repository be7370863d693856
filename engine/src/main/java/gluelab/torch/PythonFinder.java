package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The rule for which Python runs the torch bridge: the one the user names (--python, lab.torch(PATH)),
 * else GLUELAB_PYTHON, else the active virtual environment's, else the first of python3 on PATH and
 * /usr/bin/python3 that imports torch. A Python that is named but cannot serve is an error, not
 * skipped: the user asked for it.
 */
public final class PythonFinder {
    /** The oldest torch the harness runs (harness.py's MIN_TORCH). */
    static final int[] MIN_TORCH = {1, 12};
    static final String ORDER = "order tried: --python / lab.torch(PATH), GLUELAB_PYTHON, $VIRTUAL_ENV/bin/python, python3 on PATH, /usr/bin/python3";
    private static final String PROBE = """
            import sys, json
            r = {"executable": sys.executable, "python": sys.version.split()[0]}
            try:
                import torch
                r["torch"] = torch.__version__
            except BaseException as e:
                r["error"] = "%s: %s" % (type(e).__name__, e)
            print("gluelab-probe " + json.dumps(r))
            """;
    private static final long PROBE_SECONDS = 180;
    /** Probes are kept for the process: importing torch takes seconds. */
    private static final Map<Path, Probe> PROBES = new ConcurrentHashMap<>();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Map<String, String> env;
    private final Path systemPython;

    /** {@code env}: where GLUELAB_PYTHON, VIRTUAL_ENV and PATH are read (the process's own environment in {@link #standard()}). */
    public PythonFinder(Map<String, String> env, Path systemPython) {
        this.env = Map.copyOf(env);
        this.systemPython = systemPython;
    }

    public static PythonFinder standard() { return new PythonFinder(System.getenv(), Path.of("/usr/bin/python3")); }

    /** What one Python said when asked to import torch; {@code problem} is empty when it can serve the bridge. */
    record Probe(Path python, String torch, String problem) {
        boolean serves() { return problem.isEmpty(); }
    }

    /**
     * The Python to use: {@code explicit} (a path, or a name on PATH) when given, from {@code source};
     * otherwise the rule's first one that serves. Throws a one-line {@link TorchException} naming the
     * Python and the order tried when none can serve.
     */
    public PythonChoice find(String explicit, PythonSource source) {
        if (explicit != null && !explicit.isBlank()) return named(explicit, source);
        String fromEnv = env.get("GLUELAB_PYTHON");
        if (fromEnv != null && !fromEnv.isBlank()) return named(fromEnv, PythonSource.GLUELAB_PYTHON);
        List<String> tried = new ArrayList<>();
        String venv = env.get("VIRTUAL_ENV");
        List<Candidate> candidates = new ArrayList<>();
        if (venv != null && !venv.isBlank()) candidates.add(new Candidate(Path.of(venv, "bin", "python"), PythonSource.VIRTUAL_ENV));
        else tried.add("no active virtual environment");
        onPath("python3").ifPresentOrElse(p -> candidates.add(new Candidate(p, PythonSource.PATH)), () -> tried.add("no python3 on PATH"));
        candidates.add(new Candidate(systemPython, PythonSource.SYSTEM));
        for (Candidate c : candidates) {
            Probe p = probe(c.python());
            if (p.serves()) return new PythonChoice(p.python(), c.source(), p.torch());
            tried.add(c.python() + " (" + c.source().label() + "): " + p.problem());
        }
        throw new TorchException(TorchException.Kind.MISSING, "no Python with torch found; GLUELAB_PYTHON is not set; " + String.join("; ", tried)
                + " (" + ORDER + ")" + TorchBridge.OTHER_PYTHON, null);
    }

    private record Candidate(Path python, PythonSource source) {}

    private PythonChoice named(String python, PythonSource source) {
        Path path = python.contains("/") ? Path.of(python).toAbsolutePath() : onPath(python).orElse(null);
        if (path == null) throw unusable(python, source, "not found on PATH");
        Probe p = probe(path);
        if (!p.serves()) throw unusable(python, source, p.problem());
        return new PythonChoice(path, source, p.torch());
    }

    private static TorchException unusable(String python, PythonSource source, String why) {
        TorchException.Kind kind = why.startsWith("torch ") && why.contains("too old") ? TorchException.Kind.TOO_OLD : TorchException.Kind.MISSING;
        return new TorchException(kind, source.label() + " " + python + ": " + why + " (" + ORDER + ")" + TorchBridge.OTHER_PYTHON, null);
    }

    /** The first executable {@code name} in PATH's folders. */
    Optional<Path> onPath(String name) {
        String path = env.getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isBlank()) continue;
            Path p = Path.of(dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** Runs {@code python} on a probe script that imports torch (once per path per process). */
    static Probe probe(Path python) {
        return PROBES.computeIfAbsent(python, PythonFinder::runProbe);
    }

    private static Probe runProbe(Path python) {
        if (!Files.exists(python)) return new Probe(python, "", "does not exist");
        if (!Files.isExecutable(python)) return new Probe(python, "", "is not executable");
        String out;
        int exit;
        try {
            Path script = Files.createTempFile("gluelab-probe-", ".py");
            Path output = Files.createTempFile("gluelab-probe-", ".out");
            try {
                Files.writeString(script, PROBE);
                // Output to a file, so a Python that hangs cannot block the reading past the timeout.
                Process p = new ProcessBuilder(python.toString(), script.toString()).redirectErrorStream(true).redirectOutput(output.toFile()).start();
                p.getOutputStream().close();
                if (!p.waitFor(PROBE_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return new Probe(python, "", "did not answer within " + PROBE_SECONDS + " s");
                }
                exit = p.exitValue();
                out = new String(Files.readAllBytes(output), StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(script);
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            return new Probe(python, "", "cannot be run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("interrupted while asking " + python + " for torch");
        }
        String line = out.lines().filter(l -> l.startsWith("gluelab-probe ")).reduce((a, b) -> b).orElse(null);
        if (line == null) {
            String first = out.lines().filter(l -> !l.isBlank()).findFirst().orElse("no output");
            return new Probe(python, "", "is not a Python (exit " + exit + ": " + first.strip() + ")");
        }
        JsonNode r;
        try {
            r = MAPPER.readTree(line.substring("gluelab-probe ".length()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (r.has("error")) return new Probe(python, "", "no torch (" + r.path("error").asText() + ")");
        String torch = r.path("torch").asText();
        if (!atLeast(torch, MIN_TORCH)) {
            return new Probe(python, torch, "torch " + torch + " is too old (the bridge needs " + MIN_TORCH[0] + "." + MIN_TORCH[1] + " or newer)");
        }
        return new Probe(python, torch, "");
    }

    /** {@code version} ("2.13.0+cpu") is at least major.minor. */
    static boolean atLeast(String version, int[] majorMinor) {
        String[] parts = version.split("\\+")[0].split("\\.");
        for (int i = 0; i < 2; i++) {
            int v = i < parts.length ? leadingInt(parts[i]) : 0;
            if (v != majorMinor[i]) return v > majorMinor[i];
        }
        return true;
    }

    private static int leadingInt(String s) {
        int end = 0;
        while (end < s.length() && Character.isDigit(s.charAt(end))) end++;
        return end == 0 ? 0 : Integer.parseInt(s.substring(0, end));
    }
}
