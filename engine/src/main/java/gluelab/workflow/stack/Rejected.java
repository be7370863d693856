package gluelab.workflow.stack;

/** An idea that was tried and not kept, with the evidence: "per-site RMSNorm regions: host time 330 vs 141 us per norm at 4k". */
public record Rejected(String idea, String evidence) {
    public Rejected {
        if (idea == null || idea.isBlank()) throw new IllegalArgumentException("a rejected idea needs its name (idea)");
        if (evidence == null || evidence.isBlank()) throw new IllegalArgumentException("rejected idea '" + idea + "' needs its evidence");
    }

    public String describe() { return idea + ": " + evidence; }
}
