package gluelab.cli;

import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.KeptSoFar;

import java.util.function.Supplier;

/**
 * A model step ({@code gluelab model baselines} ...) stopped by SIGINT or SIGTERM: one line on stderr saying so and what it
 * kept, then 128 + the signal's number ({@link StopSignals}). Without it the step ended silently with 130 or 143.
 */
final class ModelStepStop {
    private ModelStepStop() {}

    /** Installs the handlers for {@code step} of {@code ex}; {@code kept} says, when the signal comes, what the run leaves. */
    static StopSignals install(ExperimentFolder ex, Step step, Supplier<KeptSoFar> kept) {
        return StopSignals.install(signal -> {
            String line = line(signal, step, kept.get(), ex.has(step));
            // Runtime.halt skips the torch bridge's shutdown hook: end the harness (and its compile workers) here, as it would.
            ProcessHandle.current().descendants().forEach(ProcessHandle::destroy);
            System.err.println();
            System.err.println(line);
        });
    }

    /**
     * "STOPPED by SIGINT: step 01-baselines: 2 of 4 rows kept in steps/01-baselines/model-baselines.partial.json; the earlier
     * finished record is unchanged; run the step again to continue".
     */
    static String line(String signal, Step step, KeptSoFar kept, boolean finishedBefore) {
        return "STOPPED by " + signal + ": step " + step + ": " + kept.what() + "; "
                + (finishedBefore ? "the earlier finished record is unchanged" : "the step is not marked done") + "; run the step again to "
                + (kept.resumed() ? "continue" : "start it over");
    }
}
