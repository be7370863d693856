package gluelab.workflow.modelwriteup;

import gluelab.devlog.Devlog;
import gluelab.workflow.correctness.CheckRow;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.FeedbackKind;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.Delta;

import java.util.ArrayList;
import java.util.List;

/**
 * The model's part of step 11 beside {@link gluelab.workflow.feedback.SkillFeedback}: a fix is one
 * finding, not one per tensor. Step 08 logs a dead end per failing row; those of the fixes it checked
 * give way to the stack's one rejected entry per wrong fix (its count of failing rows and the worst).
 * A change step 07 found no win at any token count is a negative result of its own.
 */
final class ModelFeedback {
    private ModelFeedback() {}

    /** The devlog without step 08's dead ends of its fixes' rows (each step 08 fix is one entry of the stack instead). */
    static List<Devlog.Entry> withoutCheckRows(List<Devlog.Entry> devlog, CorrectnessResult checked) {
        if (checked == null) return devlog;
        List<String> prefixes = new ArrayList<>();
        for (String fix : FailedCheck.fixes(checked)) {
            checked.rows().stream().filter(r -> r.candidate().equals(fix)).map(CheckRow::subject).distinct()
                    .forEach(subject -> prefixes.add("correctness: " + subject + " " + fix + " "));
        }
        return devlog.stream().filter(e -> e.kind() != Devlog.Kind.DEAD_END || prefixes.stream().noneMatch(e.text()::startsWith)).toList();
    }

    /** A negative result per change that step 07 found no win at any token count, its numbers with their caveats as evidence. */
    static List<FeedbackItem> noWins(ChangeStack stack) {
        List<FeedbackItem> out = new ArrayList<>();
        for (Change c : stack.changes()) {
            var opening = ModelChanges.notProposed(c.title());
            if (opening.isEmpty()) continue;
            List<String> evidence = new ArrayList<>();
            for (Delta d : c.deltas()) evidence.add("step 07, " + d.workload() + ": " + d.describe());
            out.add(new FeedbackItem(FeedbackKind.NEGATIVE_RESULT, "change " + c.id() + " (" + c.title().substring(opening.get().length()) + ") is "
                    + (opening.get().equals(ModelChanges.INCONCLUSIVE) ? "inconclusive (within the noise)" : "no win") + " in step 07 at any token count", evidence));
        }
        return out;
    }
}
