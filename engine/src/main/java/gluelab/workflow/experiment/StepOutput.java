package gluelab.workflow.experiment;

import java.util.List;
import java.util.Map;

/**
 * What one step left in the experiment: the ids of the records it published (under {@code records/}),
 * the files it wrote (by name, relative to the experiment folder) and a one-line summary.
 * Written as {@code steps/NN-name.json} when the step finishes; a step run again replaces it. {@code failed}: the step ran to
 * its end but every row it produced failed, so it measured nothing; its files are kept (failures are data), and the status
 * says failed rather than done.
 */
public record StepOutput(Step step, String finished, List<String> records, Map<String, String> files, String summary, boolean failed) {
    public StepOutput {
        records = List.copyOf(records == null ? List.of() : records);
        files = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(files == null ? Map.of() : files));
        summary = summary == null ? "" : summary;
    }

    public StepOutput(Step step, String finished, List<String> records, Map<String, String> files, String summary) {
        this(step, finished, records, files, summary, false);
    }

    /** The latest record this step published, if any. */
    public java.util.Optional<String> lastRecord() { return records.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(records.getLast()); }
}
