package gluelab.workflow.writeup;

/** One broken rule: where ({@code source} is the file or a name for text, {@code line} 1-based) and what. */
public record Violation(String source, int line, PrRule rule, String message) {
    /** "pr/q-norm-rope.md:12: [problem-cost] the last Problem line ...": one line, as compilers write errors. */
    @Override public String toString() { return source + ":" + line + ": [" + rule.id() + "] " + message; }
}
