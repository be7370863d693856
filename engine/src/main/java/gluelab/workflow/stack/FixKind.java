package gluelab.workflow.stack;

/** The kinds of fix of workflow step 5, cheapest first. */
public enum FixKind {
    ENABLE_REGION("enable an existing region"),
    RESIZE_REGION("resize a region"),
    REWRITE("rewrite the function"),
    COMPILER_OPTION("region-scoped compiler option"),
    AUTOGRAD_FUNCTION("autograd.Function with a hand-written backward"),
    KERNEL("hand-written kernel");

    private final String description;

    FixKind(String description) { this.description = description; }

    public String description() { return description; }
}
