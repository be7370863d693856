package gluelab.workflow.experiment;

import java.util.Arrays;

/**
 * The workflow's steps, one notebook each. A step's {@link #noun()} names what it leaves in the
 * experiment, for the message a later step gives when it is missing ("has no ranking: run 04-rank first").
 */
public enum Step {
    PLAN("00-plan", "plan", ""),
    BASELINES("01-baselines", "baselines", "baselines"),
    IDEAL_TIMES("02-ideal-times", "ideal times", ""),
    PROFILE_DIFF("03-profile-diff", "profile diff", "profile"),
    RANK("04-rank", "ranking", "rank"),
    FIX("05-fix", "fix results", "fix"),
    GRAPH_BUDGET("06-graph-budget", "graph budget", "graphs"),
    CONFIRM("07-confirm", "confirmed comparisons", "confirm"),
    CORRECTNESS("08-correctness", "correctness verdicts", "check"),
    STACK("09-stack", "change stack", "stack"),
    FINDINGS("10-findings", "findings doc", "findings"),
    FEEDBACK("11-feedback", "skill feedback", "feedback");

    private final String notebook;
    private final String noun;
    private final String modelCommand;

    Step(String notebook, String noun, String modelCommand) {
        this.notebook = notebook;
        this.noun = noun;
        this.modelCommand = modelCommand;
    }

    /** The {@code gluelab model} subcommand that runs this step on the analyst's model ("profile"); "" where none does. */
    public String modelCommand() { return modelCommand; }

    /** The notebook's file name without {@code .ipynb}, e.g. {@code 04-rank}; also the step's id in the folder. */
    public String notebook() { return notebook; }

    /** Two digits, e.g. {@code 04}. */
    public String number() { return notebook.substring(0, 2); }

    /** What the step leaves, e.g. {@code ranking}. */
    public String noun() { return noun; }

    /** A step by number ({@code 4}, {@code "04"}), notebook name ({@code 04-rank}, {@code 04-rank.ipynb}) or enum name. */
    public static Step parse(String text) {
        String t = text.strip();
        if (t.endsWith(".ipynb")) t = t.substring(0, t.length() - 6);
        for (Step s : values()) {
            if (s.notebook.equals(t) || s.name().equalsIgnoreCase(t)) return s;
            if (t.matches("\\d{1,2}") && Integer.parseInt(t) == s.ordinal()) return s;
        }
        throw new IllegalArgumentException("unknown step '" + text + "', expected one of "
                + Arrays.stream(values()).map(Step::notebook).toList());
    }

    @Override public String toString() { return notebook; }
}
