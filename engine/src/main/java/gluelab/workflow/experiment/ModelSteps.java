package gluelab.workflow.experiment;

import java.util.Optional;

/**
 * Which notebook steps are built for a model subject, and what a model experiment runs instead of
 * the others, so their notebook says so in one line rather than running the catalogue's story on a model.
 */
final class ModelSteps {
    private ModelSteps() {}

    /** What to run instead of {@code step}'s notebook on model experiment {@code name}; empty: the notebook is built for a model. */
    static Optional<String> instead(Step step, String name) {
        return Optional.ofNullable(switch (step) {
            case PLAN, BASELINES, IDEAL_TIMES, PROFILE_DIFF, RANK, FIX, GRAPH_BUDGET, CONFIRM, CORRECTNESS -> null;
            case STACK, FINDINGS, FEEDBACK -> "this step has no model form yet; the model's numbers are in the experiment's steps/ folder and devlog.md";
        });
    }
}
