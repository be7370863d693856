package gluelab.ops;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The glue ops gluelab knows, keyed by their {@link OpId}. */
public final class Catalogue {
    private static final Map<OpId, GlueOp> OPS = new LinkedHashMap<>();

    static {
        for (GlueOp op : List.of(new RmsNorm(), new AddRmsNorm(), new QNormRope(QNormRope.Form.COMPLEX),
                new QNormRope(QNormRope.Form.REAL), new SwiGlu(), new MoeRouting(), new Cat(), new Cast())) {
            OPS.put(op.id(), op);
        }
    }

    private Catalogue() {}

    public static List<GlueOp> all() { return List.copyOf(OPS.values()); }

    public static List<OpId> ids() { return List.copyOf(OPS.keySet()); }

    public static List<String> names() { return ids().stream().map(OpId::name).toList(); }

    public static boolean contains(OpId id) { return OPS.containsKey(id); }

    public static GlueOp get(OpId id) {
        GlueOp op = OPS.get(id);
        if (op == null) throw new IllegalArgumentException("unknown op '" + id + "'; known: " + names());
        return op;
    }

    /** The op a user named in text (a plan, an option, a cell): "unknown op 'x'; known: [...]" otherwise. */
    public static GlueOp parse(String name) {
        GlueOp op = name == null ? null : OPS.get(idOrNull(name.trim()));
        if (op == null) throw new IllegalArgumentException("unknown op '" + name + "'; known: " + names());
        return op;
    }

    private static OpId idOrNull(String name) {
        try {
            return OpId.of(name);
        } catch (IllegalArgumentException notAName) {
            return null;
        }
    }
}
