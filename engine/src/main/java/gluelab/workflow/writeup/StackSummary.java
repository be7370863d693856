package gluelab.workflow.writeup;

import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.Delta;
import gluelab.units.TimeScale;

import java.util.ArrayList;
import java.util.List;

/**
 * The stack summary: the top block of the findings doc, repeated collapsed at the end of every PR
 * with that PR's line marked {@code <- this PR}. A code block: the conditions on the first line,
 * then one line per change, biggest impact first, with its headline before -> after, all in one unit.
 */
public final class StackSummary {
    public static final String THIS_PR = "<- this PR";

    private StackSummary() {}

    /** The block's lines inside the fence; {@code markId} (or null) gets {@link #THIS_PR}. */
    public static List<String> lines(ChangeStack stack, String markId) {
        List<String> out = new ArrayList<>();
        out.add(stack.conditions().describe() + "; ordered by " + stack.orderedBy());
        int width = stack.changes().stream().mapToInt(c -> c.id().length()).max().orElse(0);
        TimeScale scale = Delta.scale(stack.changes().stream().map(Change::headline).toList());
        int i = 1;
        for (Change c : stack.changes()) {
            String line = String.format("%d. %-" + width + "s  %s: %s", i++, c.id(), c.headline().workload(), c.headline().describe(scale));
            out.add(c.id().equals(markId) ? line + "  " + THIS_PR : line);
        }
        if (stack.changes().isEmpty()) out.add("(no change committed yet)");
        return out;
    }

    /** What {@code gluelab model stack} prints: the block, then every rejected idea and what was not tested, as stack.json holds them. */
    public static String text(ChangeStack stack) {
        StringBuilder out = new StringBuilder(block(stack, null).stripTrailing());
        if (stack.changes().isEmpty()) out.append("\nno change: step 07 measured no fix");
        for (var r : stack.rejected()) out.append("\nrejected: ").append(r.describe());
        for (String n : stack.notTested()) out.append("\nnot tested: ").append(n);
        return out.toString();
    }

    /** The fenced block. */
    public static String block(ChangeStack stack, String markId) {
        return "```\n" + String.join("\n", lines(stack, markId)) + "\n```\n";
    }

    /** The block folded in {@code <details>}, as the end of a PR. */
    public static String collapsed(ChangeStack stack, String markId) {
        return "<details>\n<summary>Stack summary: " + stack.changes().size() + " change" + (stack.changes().size() == 1 ? "" : "s")
                + ", biggest impact first</summary>\n\n" + block(stack, markId) + "\n</details>\n";
    }
}
