package gluelab.trace;

/**
 * A symptom found in a trace, with the likely cause, the fix and the matching pattern of
 * the workflow (docs/methodology.md, "Symptoms and the patterns that fixed them") with its measured example.
 */
public record Symptom(String id, String title, String evidence, String cause, String fix, String pattern) {}
