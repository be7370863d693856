package gluelab.workflow.writeup;

import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.SkillFeedback;
import gluelab.files.AtomicFiles;
import gluelab.record.ExperimentRecord;
import gluelab.workflow.stack.ChangeStack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Steps 10 and 11 in one call over an experiment folder: {@code findings.md}, {@code pr/ID.md} with
 * each chart beside it, and {@code feedback.md}; every PR text is checked before anything is
 * written, and a text that breaks a rule stops the step with each violation named.
 */
public final class Writeup {
    public static final String FINDINGS = "findings.md", PR_DIR = "pr", FEEDBACK = "feedback.md";

    /** What was written, and the check of every PR text (empty when all pass). */
    public record Written(Path findings, List<Path> prs, Path feedback, List<Violation> violations) {
        /** Why {@link #prs()} is empty, for a notebook to show in place of a PR text. */
        public static final String NO_PR = "no PR text: the change stack (step 09) holds no change, so there is nothing to propose;"
                + " the findings doc says what was tried and why it did not go in";

        /** The first PR text shown inline (its chart beside it), or {@link #NO_PR} when the stack wrote none. */
        public Object firstPr() {
            return prs.isEmpty() ? NO_PR : gluelab.report.ShownFile.of(prs.getFirst());
        }
    }

    private Writeup() {}

    public static Written write(Path dir, ChangeStack stack, ExperimentRecord record, List<FeedbackItem> feedback) {
        return write(dir, stack, record, List.of(), feedback);
    }

    /** As {@link #write(Path, ChangeStack, ExperimentRecord, List)}, with the steps' own sections under "What was measured" ({@link FindingsDoc}). */
    public static Written write(Path dir, ChangeStack stack, ExperimentRecord record, List<String> measured, List<FeedbackItem> feedback) {
        List<Violation> violations = new ArrayList<>();
        for (var c : stack.changes()) violations.addAll(PrChecker.check(PrText.markdown(stack, c, c.id() + ".png"), PR_DIR + "/" + c.id() + ".md", null, stack));
        if (!violations.isEmpty()) {
            throw new IllegalArgumentException("the PR texts break " + violations.size() + " rule(s); fix the stack entries:\n"
                    + String.join("\n", violations.stream().map(Violation::toString).toList()));
        }
        List<Path> prs = PrText.write(stack, dir.resolve(PR_DIR));
        for (Path p : prs) violations.addAll(PrChecker.check(p, stack));
        Path feedbackFile = SkillFeedback.write(dir.resolve(FEEDBACK), feedback == null ? List.of() : feedback);
        Path findings = dir.resolve(FINDINGS);
        AtomicFiles.write(findings, FindingsDoc.markdown(stack, record, measured, feedback, PR_DIR));
        return new Written(findings, prs, feedbackFile, List.copyOf(violations));
    }
}
