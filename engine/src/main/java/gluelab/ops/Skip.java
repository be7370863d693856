package gluelab.ops;

/**
 * Something deliberately not measured or not implemented, and why: "moe_routing region: top-k is
 * not an expression". Registries declare them for ops they have no entry for; a bench shows them
 * as notes beside its rows.
 */
public record Skip(String subject, String reason) {
    public Skip {
        if (subject == null || subject.isBlank()) throw new IllegalArgumentException("a skip names what was skipped");
        if (reason == null || reason.isBlank()) throw new IllegalArgumentException("skip of " + subject + " needs a reason");
    }

    @Override public String toString() { return subject + ": " + reason; }
}
