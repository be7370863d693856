package gluelab.workflow.experiment;

import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import com.fasterxml.jackson.databind.JsonNode;
import gluelab.devlog.Devlog;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.rank.Ranking;
import gluelab.record.ExperimentRecord;
import gluelab.record.RecordPublisher;
import gluelab.record.RecordStore;
import gluelab.report.RecordRanking;
import tech.tablesaw.api.Table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.*;
import java.util.regex.Pattern;

/**
 * One named experiment that runs through the notebooks: {@code out/experiments/NAME/} (see
 * {@link #defaultRoot()}) holds the
 * plan (written once by step 00), the devlog, the records, the charts and what each step left
 * ({@code steps/NN-name.json}). Opening it again resumes it; a notebook run alone reads what earlier
 * steps left through {@link #require(Step)}, which names the notebook to run first when it is missing.
 *
 * <pre>
 * NAME/
 *   plan.json        step 00
 *   devlog.md        every step appends
 *   records/         published runs (RecordStore)
 *   charts/          PNG/SVG charts
 *   steps/NN-x.json  what step NN left (StepOutput); steps/NN-x/ its own files
 *   stack.json  findings.md  pr/  feedback.md   steps 09-11
 * </pre>
 */
public final class ExperimentFolder {
    /** The environment variable that sets the folder experiments live in. */
    public static final String ROOT_ENV = "GLUELAB_EXPERIMENTS";
    public static final Path DEFAULT_ROOT = Path.of("out", "experiments");
    public static final String PLAN_FILE = "plan.json";
    public static final String DEVLOG_FILE = "devlog.md";
    public static final String RECORDS_DIR = "records";
    public static final String CHARTS_DIR = "charts";
    public static final String STEPS_DIR = "steps";
    public static final String STACK_FILE = "stack.json";
    public static final String FINDINGS_FILE = "findings.md";
    public static final String PR_DIR = "pr";
    public static final String FEEDBACK_FILE = "feedback.md";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    private final String name;
    private final Path dir;
    private final Devlog devlog;

    private ExperimentFolder(String name, Path dir) {
        this.name = name;
        this.dir = dir;
        this.devlog = new Devlog(dir.resolve(DEVLOG_FILE));
    }

    /** The environment variable naming the folder whose {@code out/experiments} holds the experiments. */
    public static final String HOME_ENV = "GLUELAB_HOME";
    /** The notebook's folder, set by {@code gluelab run}; Jupyter starts the kernel in it instead. */
    public static final String NOTEBOOK_FOLDER_PROPERTY = "gluelab.notebook.folder";

    /**
     * Where experiments live, the same for JupyterLab and {@code gluelab run}: {@code GLUELAB_EXPERIMENTS};
     * else {@code out/experiments} under {@code GLUELAB_HOME}; else under the repository root holding the
     * notebook's folder (the working directory in a kernel), or that folder itself outside a repository.
     */
    public static Path defaultRoot() {
        String env = System.getenv(ROOT_ENV);
        if (env != null && !env.isBlank()) return Path.of(env);
        String home = System.getenv(HOME_ENV);
        if (home != null && !home.isBlank()) return Path.of(home).resolve(DEFAULT_ROOT);
        String notebooks = System.getProperty(NOTEBOOK_FOLDER_PROPERTY);
        return home(Path.of(notebooks == null || notebooks.isBlank() ? "" : notebooks)).resolve(DEFAULT_ROOT);
    }

    /** The repository root holding {@code folder} (the nearest folder up with a {@code .git}), else {@code folder}. */
    static Path home(Path folder) {
        Path start = folder.toAbsolutePath().normalize();
        for (Path p = start; p != null; p = p.getParent()) {
            if (java.nio.file.Files.exists(p.resolve(".git"))) return p;
        }
        return start;
    }

    /** Fails, naming it, unless {@code name} can name an experiment folder. */
    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches())
            throw new IllegalArgumentException("experiment name '" + name + "' must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit");
        return name;
    }

    /** Creates or resumes experiment {@code name} under {@link #defaultRoot()}. */
    public static ExperimentFolder open(String name) { return open(name, defaultRoot()); }

    /** Creates or resumes experiment {@code name} under {@code root}. */
    public static ExperimentFolder open(String name, Path root) {
        checkName(name);
        Path dir = root.resolve(name).toAbsolutePath().normalize();
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new IllegalArgumentException("experiment '" + name + "': " + dir + " exists and is not a folder");
        try {
            Files.createDirectories(dir.resolve(RECORDS_DIR));
            Files.createDirectories(dir.resolve(CHARTS_DIR));
            Files.createDirectories(dir.resolve(STEPS_DIR));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create experiment folder " + dir + ": " + e.getMessage(), e);
        }
        return new ExperimentFolder(name, dir);
    }

    public String name() { return name; }

    /**
     * Removes this experiment's folder when nothing was written in it (only the empty folders {@link #open} makes): a plan
     * that could not be written must not leave an empty experiment behind to be mistaken for one. A file keeps it all.
     */
    public void removeIfNothingWritten() {
        try (var paths = Files.walk(dir)) {
            List<Path> all = paths.sorted(java.util.Comparator.reverseOrder()).toList();
            if (all.stream().anyMatch(q -> !Files.isDirectory(q))) return;
            for (Path q : all) Files.delete(q);
        } catch (IOException | UncheckedIOException ignored) {
            // Left as it is: the error that made it empty matters more.
        }
    }

    public Path dir() { return dir; }

    /** The experiment's devlog ({@code devlog.md}); every step appends to it. */
    public Devlog devlog() { return devlog; }

    /** Where steps publish their records. */
    public RecordStore records() { return new RecordStore(dir.resolve(RECORDS_DIR)); }

    /** Where steps draw their charts, created on use (a {@link #missing} step may have removed an untouched folder). */
    public Path chartsDir() {
        Path d = dir.resolve(CHARTS_DIR);
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + d + ": " + e.getMessage(), e);
        }
        return d;
    }

    /** A folder of a step's own files ({@code steps/05-fix/}), created on first use. */
    public Path stepDir(Step step) {
        Path d = dir.resolve(STEPS_DIR).resolve(step.notebook());
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + d + ": " + e.getMessage(), e);
        }
        return d;
    }

    /** The change stack (step 09). */
    public Path stackFile() { return dir.resolve(STACK_FILE); }

    /** The findings doc (step 10). */
    public Path findingsFile() { return dir.resolve(FINDINGS_FILE); }

    /** The PR texts, one markdown per stack entry, with their charts (step 10). */
    public Path prDir() { return dir.resolve(PR_DIR); }

    /** The skill feedback list (step 11). */
    public Path feedbackFile() { return dir.resolve(FEEDBACK_FILE); }

    public Path planFile() { return dir.resolve(PLAN_FILE); }

    public boolean hasPlan() { return Files.isRegularFile(planFile()); }

    /**
     * Step 00: writes the plan the first time; later calls with the same plan (creation time aside)
     * return the stored one, so a re-run resumes; a different plan is refused, naming the field.
     */
    public ExperimentPlan plan(ExperimentPlan plan) { return plan(plan, null); }

    /**
     * As {@link #plan(ExperimentPlan)}, for a plan of the analyst's model that step 00's model check ran: what it ran on
     * ({@code checked}) is kept beside the plan, so reading the plan refuses an input the check never saw.
     */
    public ExperimentPlan plan(ExperimentPlan plan, CheckedInputs checked) {
        // Two processes starting one experiment with different plans both saw no plan and both wrote one.
        try (var lock = gluelab.files.FileLock.take(lockFile(), java.time.Duration.ofMinutes(2), "another process writing the plan of experiment '" + name + "'")) {
            ExperimentPlan stored = planLocked(plan);
            if (checked != null) AtomicFiles.write(checkedInputsFile(), Json.write(checked));
            return stored;
        }
    }

    /** What step 00's model check ran the model on ({@link CheckedInputs}). */
    public Path checkedInputsFile() { return dir.resolve(STEPS_DIR).resolve(Step.PLAN.notebook()).resolve(CheckedInputs.FILE); }

    /** Beside the folder, not in it: an experiment holding only its skeleton still counts as untouched. */
    private Path lockFile() { return dir.resolveSibling("." + name + ".lock"); }

    /**
     * Holds the experiment for {@code step} until closed: every step that runs the model or writes a step's results takes it
     * before its work, and one taken while another process or thread runs a step is refused at once, naming that step (see
     * {@link StepLock}). Not the plan's lock: step 00 writes its plan while it holds this one.
     */
    public StepLock running(Step step) { return StepLock.take(dir.resolveSibling("." + name + ".running"), name, step); }

    private ExperimentPlan planLocked(ExperimentPlan plan) {
        if (hasPlan()) {
            // Not plan(): a plan checked again after its inputs were edited is compared with, not refused for, what the last check ran.
            ExperimentPlan stored = readPlan(false);
            String diff = stored.firstDifference(plan);
            if (diff != null) throw new IllegalArgumentException("experiment '" + name + "' already has a plan that differs in " + diff
                    + " (" + planFile() + "); use a new experiment name, or delete the folder to start over");
            if (!has(Step.PLAN)) done(Step.PLAN, List.of(), Map.of("plan", PLAN_FILE), describe(stored));
            return stored;
        }
        AtomicFiles.write(planFile(), Json.write(plan));
        devlog.decision("plan of experiment '" + name + "': " + describe(plan));
        done(Step.PLAN, List.of(), Map.of("plan", PLAN_FILE), describe(plan));
        return plan;
    }

    /** Step 00 in one call: a plan made now (see {@link #plan(ExperimentPlan)}). */
    public ExperimentPlan plan(String model, List<Long> tokens, double stopFraction, String device) {
        return plan(ExperimentPlan.of(model, tokens, stopFraction, device));
    }

    /**
     * The plan step 00 wrote. A model's inputs are refused, naming plan.json and {@code subject.inputs[i]}, when one is
     * malformed (no dtype, say) or is not one step 00's model check ran (a name that is not forward's parameter).
     */
    public ExperimentPlan plan() { return readPlan(true); }

    private ExperimentPlan readPlan(boolean againstCheck) {
        if (!hasPlan()) throw missing(Step.PLAN);
        FolderFile f = FolderFile.read(planFile())
                .require("model", JsonNode::isTextual, "a model name")
                .require("tokens", n -> n.isArray() && !n.isEmpty(), "a non-empty list of token counts")
                .require("stopFraction", JsonNode::isNumber, "a number in (0, 1)")
                .require("device", JsonNode::isTextual, "a device selector such as auto, cpu or cuda:0");
        f.check("device", n -> gluelab.device.Devices.check(n.asText()));
        if (f.has("subject")) checkModelSubject(f);
        ExperimentPlan plan = f.as(ExperimentPlan.class);
        // A plan is never rewritten to another subject, so a catalogue plan beside step 00's model check is a hand edit.
        if (!plan.hasModelSubject() && Files.isRegularFile(checkedInputsFile()))
            throw new IllegalArgumentException(planFile() + ": field \"subject\" is " + (f.has("subject") ? "not a model" : "null or missing")
                    + ", but step 00 checked a model file for this experiment (" + checkedInputsFile().getFileName()
                    + "): put back the subject it was planned with (the model file, its function and inputs), or plan a new experiment");
        if (plan.hasModelSubject()) {
            PlanInputs.Problem wrong = PlanInputs.problem(plan.subject().inputs());
            if (wrong != null) throw new IllegalArgumentException(wrong.message(planFile()));
            if (againstCheck && Files.isRegularFile(checkedInputsFile())) {
                wrong = PlanInputs.unchecked(plan.subject().inputs(), FolderFile.read(checkedInputsFile()).as(CheckedInputs.class));
                if (wrong != null) throw new IllegalArgumentException(wrong.message(planFile()) + "; plan.json was changed after the check: to check these inputs, run "
                        + "gluelab experiment " + name + " --model-file " + plan.subject().entry() + " --inputs '" + plan.subject().inputs() + "' with the plan's other options");
            }
        }
        return plan;
    }

    /** The analyst's model as the plan names it, checked field by field when the plan is read, not when a later step meets it. */
    private static void checkModelSubject(FolderFile f) {
        java.util.function.Predicate<JsonNode> text = n -> n.isTextual() && !n.asText().isBlank();
        f.require("subject", JsonNode::isObject, "an object naming the model file, its function and its inputs")
                .require("subject.file", text, "the model file's path")
                .require("subject.file", n -> n.asText().strip().endsWith(".py"), "the path of a .py file")
                .require("subject.function", text, "the name of the function that builds the model, such as build")
                .require("subject.function", n -> n.asText().matches("[A-Za-z_][A-Za-z0-9_]*"), "a Python function name, such as build")
                .require("subject.inputs", text, "forward's inputs as a string NAME:DIMS:DTYPE;..., such as \"x:T,D:bf16\"")
                .optional("subject.blocks", JsonNode::isTextual, "the name of the container of repeated blocks (\"\": found)")
                .optional("subject.regions", n -> n.isArray() && java.util.stream.StreamSupport.stream(n.spliterator(), false).allMatch(JsonNode::isTextual),
                        "a list of functions such as [\"model.Attention.rope\"]");
    }

    private static String describe(ExperimentPlan p) {
        return (p.hasModelSubject() ? "model file " + p.subject().entry() + " on inputs " + p.subject().inputs()
                + (p.subject().regions().isEmpty() ? "" : ", regions " + p.subject().regions()) + " (symbols of " + p.model() + ")" : "model " + p.model()) + ", tokens " + p.tokens() + ", stop when the gap is under " + (p.stopFraction() * 100) + "% of the layer, device " + p.device();
    }

    Path markerFile(Step step) { return dir.resolve(STEPS_DIR).resolve(step.notebook() + ".json"); }

    /** Records that {@code step} finished, with the records it published and the files it wrote (relative to this folder). */
    public StepOutput done(Step step, List<String> recordIds, Map<String, String> files, String summary) {
        return finish(step, recordIds, files, summary, false);
    }

    /**
     * Records that {@code step} ran to its end but every row it produced failed: its files stay (later steps and the analyst read
     * the reasons), and {@link #status()} shows it as failed, not done.
     */
    public StepOutput failed(Step step, Map<String, String> files, String summary) { return finish(step, List.of(), files, summary, true); }

    private StepOutput finish(Step step, List<String> recordIds, Map<String, String> files, String summary, boolean failed) {
        for (String id : recordIds) {
            if (!Files.isDirectory(records().root().resolve(id)))
                throw new IllegalArgumentException("step " + step + " names record '" + id + "', which is not published in " + records().root());
        }
        StepOutput out = new StepOutput(step, Instant.now().toString(), recordIds, files, summary, failed);
        AtomicFiles.write(markerFile(step), Json.write(out));
        devlog.note("step " + step + (failed ? " failed" : " done") + (summary == null || summary.isBlank() ? "" : ": " + summary));
        return out;
    }

    /** Publishes a finished record under {@code records/} (built in a partial folder, renamed when whole, FAILED on failure); returns its folder. */
    public Path publish(ExperimentRecord record) { return new RecordPublisher(records()).publish(record).dir(); }

    public boolean has(Step step) { return Files.isRegularFile(markerFile(step)); }

    /** What {@code step} left, if it ran. */
    public Optional<StepOutput> output(Step step) { return has(step) ? Optional.of(read(step)) : Optional.empty(); }

    /** What {@code step} left; fails naming the notebook to run first when it has not run. */
    public StepOutput require(Step step) {
        if (!has(step)) throw missing(step);
        return read(step);
    }

    private StepOutput read(Step step) {
        StepOutput out = FolderFile.read(markerFile(step))
                .require("step", JsonNode::isTextual, "a step name such as " + step.name())
                .require("finished", JsonNode::isTextual, "an ISO-8601 instant")
                .require("records", JsonNode::isArray, "a list of record ids")
                .require("files", JsonNode::isObject, "an object of name -> path")
                .as(StepOutput.class);
        if (out.step() != step) throw new IllegalArgumentException(markerFile(step) + ": field \"step\" is " + out.step().name() + ", expected " + step.name());
        return out;
    }

    /** The latest record {@code step} published. */
    public ExperimentRecord record(Step step) {
        String id = require(step).lastRecord().orElseThrow(() -> new IllegalArgumentException(
                "experiment '" + name + "': step " + step + " published no record (" + markerFile(step) + ")"));
        return RecordStore.load(records().root().resolve(id));
    }

    /** A file {@code step} wrote, by the name it gave it. */
    public Path file(Step step, String fileName) {
        String rel = require(step).files().get(fileName);
        if (rel == null) throw new IllegalArgumentException("experiment '" + name + "': step " + step + " left no file '" + fileName
                + "' (" + markerFile(step) + " lists " + require(step).files().keySet() + "); run " + step + " again");
        Path p = dir.resolve(rel).normalize();
        if (!p.startsWith(dir)) throw new IllegalArgumentException(markerFile(step) + ": field \"files." + fileName + "\" points outside the experiment: " + rel);
        if (!Files.exists(p)) throw new IllegalArgumentException("experiment '" + name + "': " + p + " (left by step " + step + ") is missing; run " + step + " again");
        return p;
    }

    /** The ranking step 04 made (from the record it ranked, with that record's stop rule). */
    public Ranking ranking() { return RecordRanking.of(record(Step.RANK)); }

    /**
     * A step that has not run, as the error a later step gives. A folder that {@link #open} just made
     * for a name with nothing behind it (a typo in a later step's parameters) is removed again, so
     * it does not show up later as an experiment.
     */
    public IllegalStateException missing(Step step) {
        removeIfUntouched();
        String command = step.modelCommand().isEmpty() || !isModelExperiment() ? "" : " (gluelab model " + step.modelCommand() + " " + name + ")";
        return new IllegalStateException("experiment '" + name + "' has no " + step.noun() + ": run " + step + command + " first");
    }

    /** Whether the plan names the analyst's model; false when there is none or it does not read (its own error comes when it is read). */
    private boolean isModelExperiment() {
        if (!hasPlan()) return false;
        try {
            return readPlan(false).hasModelSubject();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Deletes the folder when it holds only the empty skeleton {@link #open} creates. */
    private void removeIfUntouched() {
        List<Path> skeleton = List.of(dir.resolve(RECORDS_DIR), dir.resolve(CHARTS_DIR), dir.resolve(STEPS_DIR));
        try (var entries = Files.list(dir)) {
            if (!entries.allMatch(skeleton::contains)) return;
            for (Path d : skeleton) {
                try (var inside = Files.list(d)) {
                    if (inside.findAny().isPresent()) return;
                }
            }
            for (Path d : skeleton) Files.deleteIfExists(d);
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // Best effort: a folder left behind is untidy, not wrong.
        }
    }

    private static final gluelab.table.Column STEP = gluelab.table.Column.text("step", "the workflow step's notebook"),
            STATE = gluelab.table.Column.text("state", "done, failed (ran, but every row failed), - (not run) or unreadable"),
            RECORDS = gluelab.table.Column.text("records", "the experiment records the step wrote"),
            SUMMARY = gluelab.table.Column.text("summary", "the step's one-line result, or why its output is unreadable");

    /** The widest a status cell is printed as text: the table then fits a 120-column terminal (the summaries stay whole in steps/ and the devlog). */
    public static final int STATUS_CELL_WIDTH = 44;

    /** What a step that found the machine busy says after its summary: "...; busy machine: host load average 3.10 ... (at the end)". */
    public static final String BUSY = "busy machine";

    /** One row per step: whether it ran, when (to the second), its records and summary. */

    public Table status() {
        var t = DataTable.builder("experiment " + name, STEP, STATE, Columns.FINISHED, RECORDS, SUMMARY);
        for (Step s : Step.values()) {
            Optional<StepOutput> o;
            try {
                o = output(s);
            } catch (IllegalArgumentException e) {
                t.row(s.notebook(), "unreadable", null, "", e.getMessage());
                continue;
            }
            t.row(s.notebook(), o.isEmpty() ? "-" : o.get().failed() ? "failed" : "done", o.map(StepOutput::finished).orElse(null), o.map(x -> String.join(", ", x.records())).orElse(""),
                    o.map(StepOutput::summary).orElse(""));
        }
        return TableFormat.tablesaw(t.build());
    }

    /** {@link #status()} as text within a 120-column terminal, each summary shortened by {@link #statusCell}. */
    public String statusText() {
        Table t = status();
        var summaries = t.stringColumn(SUMMARY.name());
        for (int i = 0; i < t.rowCount(); i++) summaries.set(i, statusCell(summaries.get(i), STATUS_CELL_WIDTH));
        return TableFormat.text(t, 100, STATUS_CELL_WIDTH);
    }

    /**
     * A summary in at most {@code width} characters. A busy machine's note is long and comes last: cut in the middle, the
     * cell read "8 rows of llama3.py:b...ava 60% (at the end)"; it keeps what the step found and "(busy machine)" instead.
     */
    static String statusCell(String summary, int width) {
        int busy = summary.indexOf("; " + BUSY + ": ");
        if (busy < 0) return TableFormat.fit(summary, width);
        String mark = " (" + BUSY + ")", head = summary.substring(0, busy);
        return (head.length() + mark.length() <= width ? head : head.substring(0, width - mark.length() - 3).stripTrailing() + "...") + mark;
    }

    @Override public String toString() { return "experiment '" + name + "' at " + dir; }
}
