package gluelab.workflow.experiment;

/**
 * What step 00's model check ran the analyst's model on: the plan's inputs as written ({@code x:T,64:fp32}) and
 * forward's signature as Python gives it ({@code (x)}). Kept beside the plan ({@code steps/00-plan/model-check.json})
 * so reading the plan can tell an input the check never saw (a name that is not forward's parameter) without
 * importing the model.
 */
public record CheckedInputs(String inputs, String forward) {
    public static final String FILE = "model-check.json";

    public CheckedInputs {
        if (inputs == null || inputs.isBlank()) throw new IllegalArgumentException("model check: no inputs");
        forward = forward == null ? "" : forward;
    }
}
