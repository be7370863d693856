package gluelab.expr.lower;

/** What a node is within one row of a fused region. */
public enum Role {
    /** A constant or parameter: one value for the whole region. */
    SCALAR,
    /** One value per row (a reduction's result, a per-row input such as a score). */
    ROW,
    /** A vector along the node's last dim, per row. */
    VECTOR,
    /** Summed over rows into a fixed target (a weight's gradient): only an output of the region. */
    ACCUMULATE
}
