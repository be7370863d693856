package gluelab.fix;

/** The kinds of fix, cheapest first (the order step 05 tries them in). */
public enum FixKind {
    CATALOGUE_VARIANT("catalogue kernel"),
    REGION("expression region"),
    REWRITE("expression rewrite"),
    CUDA_KERNEL("%%cuda kernel"),
    TORCH("torch form");

    private final String label;

    FixKind(String label) { this.label = label; }

    public String label() { return label; }
}
