package gluelab.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.stream.Stream;

/**
 * All known model specs: the presets plus user JSON files. A user file names a parent with
 * {@code "extends"} and overrides any field; {@code "regions"} adds to the parent's enabled regions
 * unless {@code "regionsReplace": true}.
 */
public final class SpecRegistry {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("name", "extends", "source", "hidden", "heads", "kvHeads",
            "headDim", "ropeHeadDim", "ffn", "moeFfn", "experts", "topK", "routerScore", "normEps", "ropeTheta",
            "layers", "regions", "regionsReplace");

    private final Map<String, ModelSpec> specs = new LinkedHashMap<>();
    private final Map<String, Path> origins = new HashMap<>();

    private SpecRegistry() {}

    /** The presets alone. */
    public static SpecRegistry presets() {
        SpecRegistry r = new SpecRegistry();
        for (ModelSpec s : Presets.all()) r.specs.put(s.name(), s);
        return r;
    }

    /** Presets plus every {@code *.json} in the given folders (missing folders are skipped). */
    public static SpecRegistry load(List<Path> folders) {
        SpecRegistry r = presets();
        Map<String, ObjectNode> raw = new LinkedHashMap<>();
        for (Path folder : folders) {
            if (!Files.isDirectory(folder)) continue;
            try (Stream<Path> files = Files.list(folder)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                    ObjectNode node = readSpecFile(f);
                    String name = node.path("name").asText(stripJson(f));
                    node.put("name", name);
                    raw.put(name, node);
                    r.origins.put(name, f);
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot list model specs in " + folder + ": " + e.getMessage(), e);
            }
        }
        for (String name : List.copyOf(raw.keySet())) r.resolve(name, raw, new ArrayDeque<>());
        return r;
    }

    /** Adds one spec from JSON text (for notebooks and tests); returns it resolved. */
    public ModelSpec define(String jsonText) {
        ObjectNode node;
        try {
            JsonNode parsed = JSON.readTree(jsonText);
            if (!(parsed instanceof ObjectNode o)) throw new IllegalArgumentException("a model spec must be a JSON object");
            node = o;
        } catch (IOException e) {
            throw new IllegalArgumentException("model spec is not valid JSON: " + e.getMessage(), e);
        }
        checkFields(node, "inline spec");
        if (!node.hasNonNull("name")) throw new IllegalArgumentException("inline spec needs a \"name\"");
        Map<String, ObjectNode> raw = new LinkedHashMap<>();
        raw.put(node.get("name").asText(), node);
        return resolve(node.get("name").asText(), raw, new ArrayDeque<>());
    }

    private static ObjectNode readSpecFile(Path f) {
        try {
            JsonNode node = JSON.readTree(f.toFile());
            if (!(node instanceof ObjectNode o)) throw new IllegalArgumentException("model spec " + f + " must hold a JSON object");
            checkFields(o, f.toString());
            return o;
        } catch (IOException e) {
            throw new IllegalArgumentException("model spec " + f + " is not valid JSON: " + e.getMessage(), e);
        }
    }

    private static void checkFields(ObjectNode node, String where) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!FIELDS.contains(field)) {
                throw new IllegalArgumentException(where + ": unknown field \"" + field + "\"; known: " + new TreeSet<>(FIELDS));
            }
        }
    }

    private static String stripJson(Path f) {
        String n = f.getFileName().toString();
        return n.substring(0, n.length() - ".json".length());
    }

    private ModelSpec resolve(String name, Map<String, ObjectNode> raw, Deque<String> chain) {
        if (chain.contains(name)) throw new IllegalArgumentException("model spec cycle: " + String.join(" -> ", chain) + " -> " + name);
        ObjectNode node = raw.get(name);
        if (node == null) return get(name);
        chain.addLast(name);
        String parentName = node.path("extends").asText(null);
        ModelSpec parent = parentName == null ? null : resolve(parentName, raw, chain);
        chain.removeLast();
        String where = origins.containsKey(name) ? origins.get(name).toString() : "spec " + name;
        try {
            List<String> regions = new ArrayList<>();
            if (parent != null && !node.path("regionsReplace").asBoolean(false)) regions.addAll(parent.regions());
            for (JsonNode r : node.path("regions")) if (!regions.contains(r.asText())) regions.add(r.asText());
            ModelSpec spec = new ModelSpec(name, parentName,
                    node.path("source").asText(where),
                    intField(node, "hidden", parent == null ? 0 : parent.hidden(), where),
                    intField(node, "heads", parent == null ? 0 : parent.heads(), where),
                    intField(node, "kvHeads", parent == null ? 0 : parent.kvHeads(), where),
                    intField(node, "headDim", parent == null ? 0 : parent.headDim(), where),
                    intField(node, "ropeHeadDim", parent == null ? intField(node, "headDim", 0, where) : parent.ropeHeadDim(), where),
                    intField(node, "ffn", parent == null ? 0 : parent.ffn(), where),
                    intField(node, "moeFfn", parent == null ? 0 : parent.moeFfn(), where),
                    intField(node, "experts", parent == null ? 0 : parent.experts(), where),
                    intField(node, "topK", parent == null ? 0 : parent.topK(), where),
                    node.path("routerScore").asText(parent == null ? null : parent.routerScore()),
                    node.path("normEps").asDouble(parent == null ? 1e-5 : parent.normEps()),
                    node.path("ropeTheta").asDouble(parent == null ? 10000 : parent.ropeTheta()),
                    intField(node, "layers", parent == null ? 1 : parent.layers(), where),
                    regions);
            specs.put(name, spec);
            raw.remove(name);
            return spec;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static int intField(ObjectNode node, String field, int fallback, String where) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return fallback;
        if (!v.canConvertToInt() || !v.isIntegralNumber()) throw new IllegalArgumentException(where + ": \"" + field + "\" must be a whole number, got " + v);
        return v.asInt();
    }

    public ModelSpec get(String name) {
        ModelSpec s = specs.get(name);
        if (s == null) throw new IllegalArgumentException("unknown model spec '" + name + "'; known: " + specs.keySet());
        return s;
    }

    public Collection<ModelSpec> all() { return Collections.unmodifiableCollection(specs.values()); }

    /** Every spec that inherits from {@code name} (its descendants), in breadth-first order. */
    public List<ModelSpec> descendants(String name) {
        get(name);
        List<ModelSpec> out = new ArrayList<>();
        Deque<String> queue = new ArrayDeque<>(List.of(name));
        while (!queue.isEmpty()) {
            String current = queue.removeFirst();
            for (ModelSpec s : specs.values()) {
                if (current.equals(s.parent()) && !out.contains(s)) {
                    out.add(s);
                    queue.addLast(s.name());
                }
            }
        }
        return out;
    }

    /**
     * Every spec a change to {@code region} in spec {@code name} reaches: the spec itself and all its
     * descendants that have the region enabled (workflow step 9).
     */
    public List<ModelSpec> reach(String name, String region) {
        List<ModelSpec> out = new ArrayList<>();
        ModelSpec self = get(name);
        if (region == null || self.regions().contains(region)) out.add(self);
        for (ModelSpec d : descendants(name)) if (region == null || d.regions().contains(region)) out.add(d);
        return out;
    }
}
