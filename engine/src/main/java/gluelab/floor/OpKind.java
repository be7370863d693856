package gluelab.floor;

/**
 * What an op of a model's profile is to the ranking: glue (floored by the bytes it moves, a candidate
 * for a fix) or a GEMM or attention (floored by its FLOPs at the device's peak, shown beside the glue
 * but never a fix candidate: gluelab's method changes the glue around them).
 */
public enum OpKind {
    GLUE, GEMM, ATTENTION;

    public boolean glue() { return this == GLUE; }

    public String id() { return name().toLowerCase(java.util.Locale.ROOT); }

    /** The harness's name ("glue", "gemm", "attention"); files written before kinds were recorded read as glue. */
    public static OpKind parse(String id) {
        if (id == null || id.isEmpty()) return GLUE;
        for (OpKind k : values()) if (k.id().equals(id)) return k;
        throw new IllegalArgumentException("unknown op kind '" + id + "'; known: glue, gemm, attention");
    }
}
