package gluelab.workflow.model;

import gluelab.torch.ModelEntry;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A step's record written after each unit it finishes (as step 05 saves after each token count), so that a run ended from
 * outside (kill -9, a closed terminal) keeps what it finished: with no step marker the record is a part-way one, and the
 * next run of the step keeps its units rather than running them again, when the plan and the model file are as they were
 * when it was saved.
 */
final class PartialStep<T> {
    private final ExperimentFolder ex;
    private final Step step;
    private final Path file;
    private boolean saved;

    PartialStep(ExperimentFolder ex, Step step, Path file) {
        this.ex = ex;
        this.step = step;
        this.file = file;
    }

    /**
     * The record a run that stopped part-way left, if the next run may keep it: no marker (the step did not finish), and
     * neither the plan nor the model file changed since it was saved. A record that does not read is not kept (run afresh).
     */
    Optional<T> left(ModelEntry entry, Class<T> type, int format) {
        if (ex.has(step) || !Files.isRegularFile(file)) return Optional.empty();
        try {
            var at = Files.getLastModifiedTime(file);
            if (Files.getLastModifiedTime(ex.planFile()).compareTo(at) > 0 || Files.getLastModifiedTime(entry.file()).compareTo(at) > 0) return Optional.empty();
            return Optional.of(StepResults.load(file, type, format));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Writes the record so far (atomically); the first save of a run takes the marker of an earlier whole run away, as it overwrites its record. */
    void save(Object sofar) {
        if (!saved) ex.rerunning(step);
        saved = true;
        StepResults.save(file, sofar);
    }

    Path file() { return file; }
}
