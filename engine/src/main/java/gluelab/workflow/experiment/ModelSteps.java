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
            case PLAN, BASELINES, PROFILE_DIFF, RANK, STACK, FINDINGS, FEEDBACK -> null;
            case IDEAL_TIMES -> "a model's ideal times come from the shapes its profile records: run 03-profile-diff (or `gluelab model profile " + name + "`), then 04-rank";
            case FIX -> "run `gluelab model fix " + name + "` on the command line";
            case GRAPH_BUDGET -> "run `gluelab model graphs " + name + "` on the command line";
            case CONFIRM -> "run `gluelab model confirm " + name + "` on the command line";
            case CORRECTNESS -> "run `gluelab model check " + name + "` on the command line";
        });
    }
}
