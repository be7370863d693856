package gluelab.workflow.model;

import gluelab.device.Device;
import gluelab.timing.QuietCheck;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Step 07's quiet check ({@link QuietCheck}) read at the start and the end of a measuring step of the
 * model (01, 03, 05), kept beside the step's results as {@code quiet.json}. When either finds the
 * machine busy, the step's summary, devlog and tables say "busy machine" with the findings, as step
 * 07 says "device not quiet"; step 04 repeats step 03's mark, since it ranks step 03's numbers.
 */
public record StepQuiet(int format, QuietCheck start, QuietCheck end) {
    public static final int FORMAT = 1;
    public static final String FILE = "quiet";
    public static final String BUSY = ExperimentFolder.BUSY;

    /** The check at the start of a step, before anything is timed. */
    public static StepQuiet start(Device device) { return new StepQuiet(FORMAT, QuietCheck.of(device, "before", Set.of()), null); }

    /** This check with the one at the end of the step. */
    public StepQuiet ended(Device device) { return new StepQuiet(format, start, QuietCheck.of(device, "after", Set.of())); }

    public boolean quiet() { return start.quiet() && (end == null || end.quiet()); }

    /** "busy machine: host load average 3.10 on 2 cores (at the start)", "" when both checks found it quiet. */
    public String mark() {
        if (quiet()) return "";
        List<String> why = new ArrayList<>();
        if (!start.quiet()) why.add(String.join("; ", start.findings()) + " (at the start)");
        if (end != null && !end.quiet()) why.add(String.join("; ", end.findings()) + " (at the end)");
        return BUSY + ": " + String.join("; ", why);
    }

    /** "; busy machine: ..." to follow a summary, or "". */
    public String suffix() { return quiet() ? "" : "; " + mark(); }

    /**
     * Saves the check into {@code step}'s folder, notes a busy machine in the devlog, and returns the files map of the
     * step with the check's file added (as the step marker lists it).
     */
    public java.util.Map<String, String> record(ExperimentFolder ex, Step step, java.util.Map<String, String> files) {
        Path file = ex.stepDir(step).resolve(FILE + ".json");
        StepResults.save(file, this);
        if (!quiet()) ex.devlog().note("step " + step + ": " + mark() + "; its timings are weaker for it");
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>(files);
        out.put(FILE, ex.dir().relativize(file).toString());
        return out;
    }

    /** The check {@code step} kept, if it kept one (steps run before the check was kept have none). */
    public static Optional<StepQuiet> of(ExperimentFolder ex, Step step) {
        if (!ex.has(step) || !ex.require(step).files().containsKey(FILE)) return Optional.empty();
        Path file = ex.file(step, FILE);
        return Files.isRegularFile(file) ? Optional.of(StepResults.load(file, StepQuiet.class, FORMAT)) : Optional.empty();
    }

    /** {@code step}'s mark, "" when quiet or when it kept no check. */
    public static String markOf(ExperimentFolder ex, Step step) { return of(ex, step).map(StepQuiet::mark).orElse(""); }

    /** {@code table} with {@code step}'s mark after its name: "model baselines ... [busy machine: ...]". */
    public static tech.tablesaw.api.Table marked(tech.tablesaw.api.Table table, ExperimentFolder ex, Step step) {
        String mark = markOf(ex, step);
        return mark.isEmpty() ? table : table.setName(table.name() + " [" + mark + "]");
    }
}
