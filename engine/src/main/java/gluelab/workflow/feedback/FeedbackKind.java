package gluelab.workflow.feedback;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a proposed addition to the method is (workflow step 11). */
public enum FeedbackKind {
    PATTERN("New patterns"),
    EDGE_CASE("Edge cases"),
    NEGATIVE_RESULT("Negative results"),
    WRONG_ADVICE("Wrong advice"),
    COMPILE_LIMIT("New compile limits");

    private final String heading;

    FeedbackKind(String heading) { this.heading = heading; }

    public String heading() { return heading; }

    /** A devlog entry's leading tag: "pattern:", "edge case:", "negative:", "wrong advice:", "limit:". */
    static final Pattern TAG = Pattern.compile("^\\s*(pattern|edge[ -]case|negative(?: result)?|wrong advice|(?:compile )?limit)\\s*:\\s*", Pattern.CASE_INSENSITIVE);

    /** The kind a tagged text names, or null when it has no tag. */
    static FeedbackKind tagged(String text) {
        Matcher m = TAG.matcher(text);
        if (!m.find()) return null;
        String t = m.group(1).toLowerCase(Locale.ROOT);
        if (t.startsWith("pattern")) return PATTERN;
        if (t.startsWith("edge")) return EDGE_CASE;
        if (t.startsWith("negative")) return NEGATIVE_RESULT;
        if (t.startsWith("wrong")) return WRONG_ADVICE;
        return COMPILE_LIMIT;
    }

    /** {@code text} without its tag. */
    static String untagged(String text) { return TAG.matcher(text).replaceFirst("").strip(); }
}
