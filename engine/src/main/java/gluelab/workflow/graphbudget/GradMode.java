package gluelab.workflow.graphbudget;

/** Torch guards on grad mode: a region called under {@code no_grad} (evaluation, a recompute) compiles its own graph. */
public enum GradMode {
    GRAD("grad"), NO_GRAD("no_grad");

    private final String id;

    GradMode(String id) { this.id = id; }

    @com.fasterxml.jackson.annotation.JsonValue public String id() { return id; }

    @com.fasterxml.jackson.annotation.JsonCreator public static GradMode parse(String text) {
        for (GradMode m : values()) if (m.id.equals(text.strip().toLowerCase(java.util.Locale.ROOT))) return m;
        throw new IllegalArgumentException("unknown grad mode '" + text + "'; known: grad, no_grad");
    }
}
