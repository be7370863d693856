package gluelab.workflow.feedback;

import java.util.List;

/** One proposed addition to the method, with the evidence a reviewer checks it against. */
public record FeedbackItem(FeedbackKind kind, String proposal, List<String> evidence) {
    public FeedbackItem {
        if (kind == null) throw new IllegalArgumentException("a feedback item needs its kind");
        if (proposal == null || proposal.isBlank()) throw new IllegalArgumentException("a feedback item needs its proposal");
        evidence = evidence == null ? List.of() : List.copyOf(evidence);
        if (evidence.isEmpty()) throw new IllegalArgumentException("feedback '" + proposal + "' needs its evidence");
    }
}
