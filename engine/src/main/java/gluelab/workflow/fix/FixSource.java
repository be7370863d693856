package gluelab.workflow.fix;

/** Where a fix tried in step 05 comes from, cheapest first (the order they are tried in). Not the workflow's kind of change (enable or resize a region, rewrite...), which a change in the stack records. */
public enum FixSource {
    CATALOGUE_VARIANT("catalogue kernel"),
    REGION("expression region"),
    REWRITE("expression rewrite"),
    CUDA_KERNEL("%%cuda kernel"),
    TORCH("torch form");

    private final String label;

    FixSource(String label) { this.label = label; }

    public String label() { return label; }
}
