package gluelab.workflow.model;

/**
 * What a step stopped part-way (Ctrl-C, a kill) leaves for the next run, as its stop line says it: {@code what} ("2 of 4 rows
 * kept in steps/01-baselines/model-baselines.partial.json"), and whether the next run of the step continues from it
 * ({@code resumed}) or runs everything again.
 */
public record KeptSoFar(String what, boolean resumed) {
    /** A step that writes its record only when it finishes. */
    public static final KeptSoFar NOTHING = new KeptSoFar("nothing of this run: the step writes its record when it finishes", false);
}
