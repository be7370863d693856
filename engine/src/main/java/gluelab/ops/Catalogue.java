package gluelab.ops;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The glue ops gluelab knows, by name. */
public final class Catalogue {
    private static final Map<String, GlueOp> OPS = new LinkedHashMap<>();

    static {
        for (GlueOp op : List.of(new RmsNorm(), new AddRmsNorm(), new QNormRope(QNormRope.Form.COMPLEX),
                new QNormRope(QNormRope.Form.REAL), new SwiGlu(), new MoeRouting(), new Cat(), new Cast())) {
            OPS.put(op.name(), op);
        }
    }

    private Catalogue() {}

    public static List<GlueOp> all() { return List.copyOf(OPS.values()); }

    public static List<String> names() { return List.copyOf(OPS.keySet()); }

    public static GlueOp get(String name) {
        GlueOp op = OPS.get(name.trim());
        if (op == null) throw new IllegalArgumentException("unknown op '" + name + "'; known: " + names());
        return op;
    }
}
