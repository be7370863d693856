package gluelab.ops;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The glue ops gluelab knows, keyed by their {@link OpId}: every {@link GlueOp} listed in a
 * {@code META-INF/services/gluelab.ops.GlueOp} file on the class path, in the order listed.
 * docs/design.md ("Adding an op") names the one file per layer a new op adds beside it.
 */
public final class Catalogue {
    private static final Map<OpId, GlueOp> OPS = byId(discover(Catalogue.class.getClassLoader()));

    private Catalogue() {}

    /** The ops listed in the service files {@code loader} sees (the registry test adds a fixture op through its own loader). */
    public static List<GlueOp> discover(ClassLoader loader) {
        return List.copyOf(byId(ServiceLoader.load(GlueOp.class, loader).stream().map(ServiceLoader.Provider::get).toList()).values());
    }

    private static Map<OpId, GlueOp> byId(List<GlueOp> ops) {
        Map<OpId, GlueOp> out = new LinkedHashMap<>();
        for (GlueOp op : ops) {
            GlueOp before = out.put(op.id(), op);
            if (before != null) throw new IllegalStateException("two ops are named '" + op.id() + "': " + before.getClass().getName() + " and " + op.getClass().getName());
        }
        return out;
    }

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
