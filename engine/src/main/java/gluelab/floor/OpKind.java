package gluelab.floor;

/**
 * What an op of a model's profile is to the ranking: glue (floored by the bytes it moves, a candidate
 * for a fix), a GEMM or attention (floored by its FLOPs at the device's peak, shown beside the glue
 * but never a fix candidate: gluelab's method changes the glue around them), or overhead: an event
 * that moves no data of its own (a view such as {@code aten::t} or {@code aten::as_strided}, an
 * allocation, an autograd node such as {@code MmBackward0}), whose time is the host's bookkeeping,
 * shown with an ideal of 0 but never a fix candidate.
 */
public enum OpKind {
    GLUE, GEMM, ATTENTION, OVERHEAD;

    public boolean glue() { return this == GLUE; }

    public String id() { return name().toLowerCase(java.util.Locale.ROOT); }

    /** The harness's name ("glue", "gemm", "attention", "overhead"); files written before kinds were recorded read as glue. */
    public static OpKind parse(String id) {
        if (id == null || id.isEmpty()) return GLUE;
        for (OpKind k : values()) if (k.id().equals(id)) return k;
        throw new IllegalArgumentException("unknown op kind '" + id + "'; known: "
                + java.util.Arrays.stream(values()).map(OpKind::id).collect(java.util.stream.Collectors.joining(", ")));
    }
}
