package gluelab.workflow.model;

import gluelab.files.IoErrors;
import gluelab.torch.ModelEntry;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.StepResults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A step's record written after each unit it finishes (as step 05 saves after each token count), so that a run ended from
 * outside (kill -9, Ctrl-C, a closed terminal) keeps what it finished. The part-way record is a file of its own beside the
 * step's record ({@code model-baselines.partial.json} beside {@code model-baselines.json}): an earlier run that finished keeps
 * its record and marker until this run finishes, and the next run of the step keeps the part-way units rather than running
 * them again, when the plan and the model file are as they were when it was saved.
 */
final class PartialStep<T> {
    static final String SUFFIX = ".partial.json";

    private final ExperimentFolder ex;
    private final Path file;
    private final Path partial;

    /** {@code file}: the step's finished record, {@code NAME.json}. */
    PartialStep(ExperimentFolder ex, Path file) {
        this.ex = ex;
        this.file = file;
        this.partial = partialOf(file);
    }

    /** The part-way record beside the finished record {@code file}: {@code NAME.partial.json}. */
    static Path partialOf(Path file) {
        String name = file.getFileName().toString();
        return file.resolveSibling((name.endsWith(".json") ? name.substring(0, name.length() - 5) : name) + SUFFIX);
    }

    /**
     * The record a run that stopped part-way left, if the next run may keep it: neither the plan nor the model file changed
     * since it was saved. A record that does not read is not kept (run afresh).
     */
    Optional<T> left(ModelEntry entry, Class<T> type, int format) {
        if (!Files.isRegularFile(partial)) return Optional.empty();
        try {
            var at = Files.getLastModifiedTime(partial);
            if (Files.getLastModifiedTime(ex.planFile()).compareTo(at) > 0 || Files.getLastModifiedTime(entry.file()).compareTo(at) > 0) return Optional.empty();
            return Optional.of(StepResults.load(partial, type, format));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Writes the record so far (atomically) to the part-way file; the step's finished record, if any, is left as it is. */
    void save(Object sofar) { StepResults.save(partial, sofar); }

    /** The run finished: its record replaces the earlier one at once (atomically), and the part-way record goes. Then the step marks itself. */
    void finish(Object whole) {
        StepResults.save(file, whole);
        try {
            Files.deleteIfExists(partial);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + partial + ": " + IoErrors.reason(e), e);
        }
    }

    Path file() { return file; }

    Path partial() { return partial; }
}
