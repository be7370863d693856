package gluelab.trace;

/**
 * A symptom found in a trace, with the likely cause, the fix and the matching pattern of
 * shared/reference/workflow-facts.md with its measured example.
 */
public record Symptom(String id, String title, String evidence, String cause, String fix, String pattern) {}
