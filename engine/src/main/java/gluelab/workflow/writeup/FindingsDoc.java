package gluelab.workflow.writeup;

import gluelab.workflow.feedback.FeedbackItem;
import gluelab.record.ExperimentRecord;
import gluelab.report.Findings;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.CorrectnessVerdict;
import gluelab.workflow.stack.Rejected;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The findings doc of a change stack (workflow step 10): the stack summary on top (the block every
 * PR repeats), what was measured (the stack's conditions and, given the run's record, its device,
 * calibration, timing and commit as {@link Findings} writes them), the stack with its deltas and
 * a link to each PR text, rejected ideas, what was not tested, and the skill feedback.
 */
public final class FindingsDoc {
    private FindingsDoc() {}

    /**
     * @param record the run the numbers come from, or null
     * @param prDir  where the PR texts are, relative to the doc ("pr"), or null for no links
     */
    public static String markdown(ChangeStack stack, ExperimentRecord record, List<FeedbackItem> feedback, String prDir) {
        return markdown(stack, record, List.of(), feedback, prDir);
    }

    /**
     * As {@link #markdown(ChangeStack, ExperimentRecord, List, String)}, with {@code measured}: markdown
     * sections (each opening with its {@code ### } header) under "What was measured", the steps'
     * own tables of a subject without a record (a model's baselines, ranking, fixes, confirmation, correctness).
     */
    public static String markdown(ChangeStack stack, ExperimentRecord record, List<String> measured, List<FeedbackItem> feedback, String prDir) {
        StringBuilder md = new StringBuilder();
        md.append("# Findings: ").append(stack.conditions().model()).append(" on ").append(stack.conditions().device()).append("\n\n");
        md.append("## Stack summary\n\n").append(StackSummary.block(stack, null)).append('\n');

        md.append("## What was measured\n\n");
        md.append("- conditions: ").append(stack.conditions().describe()).append('\n');
        if (record != null) for (String line : Findings.measured(record)) md.append("- ").append(line).append('\n');
        md.append('\n');
        for (String section : measured) md.append(section.strip()).append("\n\n");

        md.append("## The stack\n\n");
        if (stack.changes().isEmpty()) md.append("- no change committed yet\n\n");
        int i = 1;
        for (Change c : stack.changes()) {
            md.append("### ").append(i++).append(". ").append(c.title()).append(" (`").append(c.id()).append("`)\n\n");
            md.append("- fix: ").append(c.kind().description()).append(", variant ").append(c.variant()).append('\n');
            md.append("- reaches: ").append(String.join("; ", c.scope().lines())).append('\n');
            for (var code : c.code()) md.append("- code: ").append(code.describe()).append('\n');
            md.append("- needs: commit ").append(c.commit()).append(c.config() == null ? "" : ", config " + c.config()).append('\n');
            for (CorrectnessVerdict v : c.correctness()) md.append("- correctness ").append(v.describe()).append('\n');
            if (c.graphs() != null) md.append("- ").append(c.graphs().describe()).append('\n');
            if (prDir != null) md.append("- PR text: [").append(prDir).append('/').append(c.id()).append(".md](").append(prDir).append('/').append(c.id()).append(".md)\n");
            md.append("\n```\n").append(String.join("\n", PrText.results(stack, c).subList(0, 1 + c.deltas().size()))).append("\n```\n\n");
            if (prDir != null) md.append("![").append(c.id()).append(": before vs after](").append(prDir).append('/').append(c.id()).append(".png)\n\n");
        }

        md.append("## Rejected ideas\n\n");
        List<String> rejected = new ArrayList<>();
        for (Rejected r : stack.rejected()) rejected.add(r.describe());
        for (Change c : stack.changes()) for (Rejected r : c.rejected()) rejected.add(r.describe() + " (instead of " + c.id() + ")");
        list(md, rejected, "none recorded");

        md.append("## Not tested\n\n");
        Set<String> notTested = new LinkedHashSet<>(stack.notTested());
        for (Change c : stack.changes()) for (String n : PrText.notTested(stack, c)) notTested.add(c.id() + ": " + n);
        if (record != null) notTested.addAll(Findings.notTested(record));
        list(md, List.copyOf(notTested), "nothing recorded");

        md.append("## Feedback\n\n");
        List<String> items = new ArrayList<>();
        if (feedback != null) for (FeedbackItem f : feedback) items.add(f.kind().heading().replaceAll("s$", "").toLowerCase() + ": " + f.proposal());
        list(md, items, "none proposed");
        return md.toString();
    }

    private static void list(StringBuilder md, List<String> lines, String none) {
        if (lines.isEmpty()) md.append("- ").append(none).append('\n');
        for (String l : lines) md.append("- ").append(l).append('\n');
        md.append('\n');
    }
}
