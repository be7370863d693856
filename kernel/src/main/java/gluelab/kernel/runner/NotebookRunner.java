package gluelab.kernel.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.kernel.CellRunner;
import gluelab.kernel.Session;
import gluelab.kernel.display.Renderers;
import gluelab.kernel.eval.Evaluator;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Executes a notebook's code cells in order in a fresh evaluator and writes the executed notebook
 * (nbformat 4.5: outputs, execution counts, cell ids) next to, never over, the input. Parameters are
 * injected as papermill does ({@link Parameters}). Stops at the first failing cell, at a cell that
 * runs past the cell timeout, or when {@link #stop} is called (SIGINT/SIGTERM), still writing what
 * ran with the stopped cell marked, and says which notebook, cell and error.
 */
public final class NotebookRunner {
    /** The default cell timeout: generous, for long benchmarks on a slow machine. */
    public static final long DEFAULT_CELL_TIMEOUT_S = 3600;
    /** How long a stopped cell gets to end before the partial notebook is written without it. */
    static final long STOP_GRACE_MS = 10_000;

    /** The outcome of one notebook; {@code stoppedBy} names the signal that ended the run, else null; {@code seconds} its wall time. */
    public record Result(Path notebook, Path executed, boolean ok, int failedCell, String error, int cells, String stoppedBy, double seconds) {
        public String summary() {
            if (ok) return "ok: " + notebook + " (" + cells + " code cells, " + String.format(Locale.ROOT, "%.0f", seconds) + " s) -> " + executed;
            String where = failedCell >= 0 ? ", cell " + failedCell : ", between cells";
            return (stoppedBy != null ? "STOPPED: " : "FAILED: ") + notebook + where + ": " + error + " (partial output in " + executed + ")";
        }
    }

    static final List<MIMEType> TYPES = List.of(MIMEType.TEXT_PLAIN, MIMEType.TEXT_HTML, MIMEType.TEXT_MARKDOWN, MIMEType.IMAGE_PNG,
            MIMEType.IMAGE_SVG, MIMEType.APPLICATION_JSON);

    private final Path notebook, executed;
    private final ObjectNode nb;
    private final ArrayNode cells;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Evaluator evaluator;
    private volatile Thread runnerThread;
    private volatile String stopReason;
    private volatile int current = -1;
    private volatile boolean finished, inCell;

    private NotebookRunner(Path notebook, Path executed, ObjectNode nb) {
        this.notebook = notebook;
        this.executed = executed;
        this.nb = nb;
        this.cells = (ArrayNode) nb.get("cells");
    }

    /** Runs with the default cell timeout. */
    public static Result run(Path notebook, Path outDir, Map<String, String> parameters) {
        return prepare(notebook, outDir, parameters).execute(DEFAULT_CELL_TIMEOUT_S);
    }

    /** Reads and checks the notebook and injects the parameters; every error here names the file and comes before any cell runs. */
    public static NotebookRunner prepare(Path notebook, Path outDir, Map<String, String> parameters) {
        ObjectNode nb = NotebookFiles.read(notebook);
        Parameters.inject((ArrayNode) nb.get("cells"), parameters, notebook);
        return new NotebookRunner(notebook, NotebookFiles.executedPath(notebook, outDir), nb);
    }

    /**
     * Prepares a batch that runs as one story (e.g. {@code notebooks/*.ipynb -p experiment=NAME}):
     * a parameter goes to every notebook whose parameters cell declares it, and must be declared by
     * at least one of them (else the error names it and what the notebooks declare). A single
     * notebook is prepared as {@link #prepare} does.
     */
    public static List<NotebookRunner> prepareAll(List<Path> notebooks, Path outDir, Map<String, String> parameters) {
        if (notebooks.size() == 1) return List.of(prepare(notebooks.getFirst(), outDir, parameters));
        List<ObjectNode> read = new ArrayList<>();
        Set<String> declaredSomewhere = new LinkedHashSet<>();
        for (Path p : notebooks) {
            ObjectNode nb = NotebookFiles.read(p);
            read.add(nb);
            declaredSomewhere.addAll(Parameters.declaredIn((ArrayNode) nb.get("cells")));
        }
        for (String name : parameters.keySet()) {
            if (!declaredSomewhere.contains(name)) throw new IllegalArgumentException("parameter '" + name + "' is declared in none of the "
                    + notebooks.size() + " notebooks' parameters cells; declared there: " + declaredSomewhere);
        }
        List<NotebookRunner> runs = new ArrayList<>();
        Set<Path> targets = new java.util.HashSet<>();
        for (int i = 0; i < notebooks.size(); i++) {
            ObjectNode nb = read.get(i);
            Set<String> own = Parameters.declaredIn((ArrayNode) nb.get("cells"));
            Map<String, String> mine = new LinkedHashMap<>();
            parameters.forEach((k, v) -> { if (own.contains(k)) mine.put(k, v); });
            Parameters.inject((ArrayNode) nb.get("cells"), mine, notebooks.get(i));
            Path target = NotebookFiles.executedPath(notebooks.get(i), outDir);
            // Two inputs of one name (a/x.ipynb, b/x.ipynb) would both land on OUT/x.ipynb, the second over the first.
            for (int n = 2; !targets.add(target.toAbsolutePath().normalize()); n++) target = NotebookFiles.numbered(notebooks.get(i), outDir, n);
            if (!target.getFileName().equals(NotebookFiles.executedPath(notebooks.get(i), outDir).getFileName())) {
                System.err.println("note: " + notebooks.get(i) + " has the name of a notebook before it; its executed copy is " + target);
            }
            runs.add(new NotebookRunner(notebooks.get(i), target, nb));
        }
        return runs;
    }

    /** Where the executed notebook goes. */
    public Path executed() { return executed; }

    /** Executes every code cell; a cell running longer than {@code cellTimeoutSeconds} (0: no limit) is stopped and the run fails there. */
    public Result execute(long cellTimeoutSeconds) {
        if (cellTimeoutSeconds < 0) throw new IllegalArgumentException("--cell-timeout must be 0 (none) or a number of seconds, not " + cellTimeoutSeconds);
        runnerThread = Thread.currentThread();
        long started = System.nanoTime();
        Thread exitHook = new Thread(this::writeOnUnexpectedExit, "gluelab-run-exit");
        Runtime.getRuntime().addShutdownHook(exitHook);
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gluelab-cell-timeout");
            t.setDaemon(true);
            return t;
        });
        Renderer renderer = new Renderer();
        Renderers.install(renderer);
        List<DisplayData> shown = new java.util.concurrent.CopyOnWriteArrayList<>();
        Session session = new Session(o -> shown.add(Renderers.render(renderer, o)));
        // As in the Jupyter kernel: "device auto: using the CPU (...)" is on the lab's card, not a stderr block in a cell.
        gluelab.device.Devices.notices(note -> {});
        int count = 0, failed = -1;
        String error = null;
        PrintStream oldOut = System.out, oldErr = System.err;
        // Experiments go where a kernel started in the notebook's folder puts them.
        String oldFolder = System.setProperty(gluelab.workflow.experiment.ExperimentFolder.NOTEBOOK_FOLDER_PROPERTY,
                notebook.toAbsolutePath().getParent().toString());
        try (Evaluator ev = new Evaluator()) {
            evaluator = ev;
            CellRunner runner = new CellRunner(ev, session);
            for (int i = 0; i < cells.size() && stopReason == null; i++) {
                ObjectNode cell = (ObjectNode) cells.get(i);
                if (!cell.hasNonNull("id")) cell.put("id", "cell-" + i);
                if (!"code".equals(cell.path("cell_type").asText())) continue;
                count++;
                ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
                shown.clear();
                synchronized (nb) {
                    if (stopReason != null) break;
                    current = i;
                    cell.putArray("outputs");
                    cell.put("execution_count", count);
                    inCell = true;
                }
                System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                Object value = null;
                Exception failure = null;
                ScheduledFuture<?> timer = cellTimeoutSeconds == 0 ? null
                        : watchdog.schedule(() -> stop("the cell ran past the cell timeout of " + cellTimeoutSeconds + " s (--cell-timeout; 0 = none)", null, 1),
                        cellTimeoutSeconds, TimeUnit.SECONDS);
                try {
                    value = runner.run(source(cell));
                } catch (Exception e) {
                    failure = e;
                } finally {
                    synchronized (nb) {
                        inCell = false;
                    }
                    if (timer != null) timer.cancel(false);
                    System.setOut(oldOut);
                    System.setErr(oldErr);
                    Thread.interrupted();
                }
                synchronized (nb) {
                    ArrayNode outputs = (ArrayNode) cell.get("outputs");
                    CellOutputs.stream(outputs, "stdout", out);
                    CellOutputs.stream(outputs, "stderr", err);
                    for (DisplayData d : shown) CellOutputs.data(outputs.addObject().put("output_type", "display_data"), d);
                    if (stopReason != null) {
                        CellOutputs.stopped(cell, stopReason);
                        failed = i;
                        error = stopReason;
                        break;
                    }
                    if (failure != null) {
                        CellOutputs.error(outputs, failure);
                        failed = i;
                        error = CellOutputs.oneLine(failure);
                        break;
                    }
                    if (value != null) {
                        ObjectNode r = outputs.addObject().put("output_type", "execute_result").put("execution_count", count);
                        CellOutputs.data(r, Renderers.render(renderer, value));
                    }
                }
            }
        } finally {
            watchdog.shutdownNow();
            System.setOut(oldOut);
            System.setErr(oldErr);
            if (oldFolder == null) System.clearProperty(gluelab.workflow.experiment.ExperimentFolder.NOTEBOOK_FOLDER_PROPERTY);
            else System.setProperty(gluelab.workflow.experiment.ExperimentFolder.NOTEBOOK_FOLDER_PROPERTY, oldFolder);
            gluelab.device.Devices.notices(null);
            session.close();
            evaluator = null;
        }
        synchronized (nb) {
            write();
            finished = true;
        }
        done.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is already on its way out; the notebook is written
        }
        if (stopReason != null && error == null) error = stopReason;
        return new Result(notebook, executed, failed < 0 && stopReason == null, failed, error, count, stopReason == null ? null : signal,
                (System.nanoTime() - started) * 1e-9);
    }

    private volatile String signal;

    /**
     * Stops the run from another thread (a signal handler, the cell timeout): the running cell is
     * stopped and marked, the partial notebook written. If the cell does not end within
     * {@link #STOP_GRACE_MS}, the partial notebook is written from here and, for a signal, the JVM
     * halts with {@code exitStatus}.
     */
    public void stop(String reason, String signalName, int exitStatus) {
        if (finished) return;
        synchronized (nb) {
            if (stopReason != null) return;
            signal = signalName;
            stopReason = reason;
        }
        // JShell's stop reaches only code already running: a stop that lands while the cell still compiles (or
        // on a loaded machine, before it starts) is repeated every 100 ms until the cell ends or the grace is over.
        long until = System.nanoTime() + STOP_GRACE_MS * 1_000_000L;
        try {
            do {
                synchronized (nb) {
                    // Only a running cell is stopped: an interrupt while JShell starts would break its compiler.
                    if (inCell) {
                        Evaluator ev = evaluator;
                        if (ev != null) ev.stop();
                        Thread t = runnerThread;
                        if (t != null) t.interrupt();
                    }
                }
                if (done.await(100, TimeUnit.MILLISECONDS)) return;
            } while (System.nanoTime() < until);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (nb) {
            if (finished) return;
            if (current >= 0) CellOutputs.stopped((ObjectNode) cells.get(current), reason + " (the cell did not stop within " + STOP_GRACE_MS / 1000 + " s)");
            write();
            finished = true;
        }
        System.err.println("gluelab run: " + reason + "; the cell did not stop, partial output in " + executed);
        Runtime.getRuntime().halt(exitStatus);
    }

    /** The JVM is ending while cells still run (an exit this runner could not guard): write what ran, and end non-zero. */
    private void writeOnUnexpectedExit() {
        synchronized (nb) {
            if (finished) return;
            if (current >= 0) CellOutputs.stopped((ObjectNode) cells.get(current), "the JVM was asked to exit while this cell ran");
            write();
            finished = true;
        }
        System.err.println("gluelab run: the JVM is exiting during " + notebook + "; partial output in " + executed);
        Runtime.getRuntime().halt(1);
    }

    private void write() {
        nb.put("nbformat", 4).put("nbformat_minor", 5);
        ObjectNode meta = nb.with("metadata");
        meta.putObject("kernelspec").put("name", "gluelab").put("display_name", "Java (gluelab)").put("language", "java");
        meta.putObject("language_info").put("name", "java").put("version", Runtime.version().toString()).put("file_extension", ".jshell");
        AtomicFiles.write(executed, Json.write(nb));
    }

    static String source(JsonNode cell) {
        JsonNode s = cell.path("source");
        if (s.isArray()) {
            StringBuilder sb = new StringBuilder();
            s.forEach(x -> sb.append(x.asText()));
            return sb.toString();
        }
        return s.asText();
    }

    /** Reading, checking and placing notebook files. */
    static final class NotebookFiles {
        private NotebookFiles() {}

        static ObjectNode read(Path notebook) {
            JsonNode n;
            try {
                n = Json.MAPPER.readTree(gluelab.files.TextInput.read(notebook, "notebook"));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read notebook " + notebook + ": " + e.getMessage(), e);
            }
            if (!(n instanceof ObjectNode o) || !o.path("cells").isArray()) throw new IllegalArgumentException(notebook + " is not a Jupyter notebook (no cells array)");
            JsonNode format = o.path("nbformat");
            if (!format.isMissingNode() && !(format.isInt() && format.asInt() == 4))
                throw new IllegalArgumentException(notebook + ": field \"nbformat\" is " + format + "; gluelab runs nbformat 4 notebooks (save it with Jupyter 4+ or nbconvert --to notebook)");
            ArrayNode cells = (ArrayNode) o.get("cells");
            for (int i = 0; i < cells.size(); i++) {
                JsonNode c = cells.get(i);
                if (!(c instanceof ObjectNode)) throw new IllegalArgumentException(notebook + ": cell " + i + " is not a JSON object but " + c.getNodeType().toString().toLowerCase(Locale.ROOT) + " " + c);
                JsonNode src = c.path("source");
                boolean textual = src.isTextual() || src.isMissingNode() || src.isArray() && stream(src).allMatch(JsonNode::isTextual);
                if (!textual) throw new IllegalArgumentException(notebook + ": cell " + i + " has a 'source' that is neither text nor a list of lines");
                if (!c.path("metadata").isMissingNode() && !c.path("metadata").isObject()) throw new IllegalArgumentException(notebook + ": cell " + i + " has a 'metadata' that is not an object");
            }
            return o;
        }

        private static java.util.stream.Stream<JsonNode> stream(JsonNode array) {
            List<JsonNode> l = new ArrayList<>();
            array.forEach(l::add);
            return l.stream();
        }

        /** OUT/STEM.N.ipynb: the executed copy of the N-th notebook of one name in a batch. */
        static Path numbered(Path notebook, Path outDir, int n) {
            String name = notebook.getFileName().toString();
            String stem = name.endsWith(".ipynb") ? name.substring(0, name.length() - ".ipynb".length()) : name;
            return outDir.resolve(stem + "." + n + ".ipynb");
        }

        /** OUT/NAME, or OUT/NAME.out.ipynb when that would be the input itself: an input is never overwritten. */
        static Path executedPath(Path notebook, Path outDir) {
            Path target = outDir.resolve(notebook.getFileName());
            if (same(target, notebook)) {
                String name = notebook.getFileName().toString();
                String stem = name.endsWith(".ipynb") ? name.substring(0, name.length() - ".ipynb".length()) : name;
                target = outDir.resolve(stem + ".out.ipynb");
            }
            return target;
        }

        private static boolean same(Path a, Path b) {
            try {
                if (Files.exists(a) && Files.exists(b)) return Files.isSameFile(a, b);
            } catch (IOException e) {
                // fall back to comparing the paths
            }
            return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
        }
    }
}
