package gluelab.workflow.graphbudget;

/** One way a region is called: its call site, token count and grad mode, and the compile signature that makes. */
public record Call(String region, String site, long tokens, GradMode mode, String signature) {}
