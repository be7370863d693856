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
 * unless {@code "regionsReplace": true}. A broken user file (invalid JSON, a wrong-typed or
 * out-of-range field, a missing parent, a cycle) is left out and listed in {@link #problems()},
 * naming the file and the field; every other spec still works. Asking for a broken spec by name
 * fails with its problem.
 */
public final class SpecRegistry {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("name", "extends", "source", "hidden", "heads", "kvHeads",
            "headDim", "ropeHeadDim", "ffn", "moeFfn", "experts", "topK", "routerScore", "normEps", "ropeTheta",
            "layers", "regions", "regionsReplace");

    private final Map<String, ModelSpec> specs = new LinkedHashMap<>();
    private final Map<String, Path> origins = new HashMap<>();
    private final Map<String, String> broken = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();

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
            List<Path> files;
            try (Stream<Path> list = Files.list(folder)) {
                files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
            } catch (IOException e) {
                r.problems.add("cannot list model specs in " + folder + ": " + e.getMessage());
                continue;
            }
            for (Path f : files) {
                String name = stripJson(f);
                try {
                    ObjectNode node = readSpecFile(f);
                    name = node.has("name") ? text(node, "name", f.toString()) : name;
                    if (name == null || name.isBlank()) throw new IllegalArgumentException(f + ": \"name\" must not be empty");
                    Path earlier = r.origins.get(name);
                    if (earlier != null) throw new IllegalArgumentException(f + ": model spec '" + name + "' is already defined in " + earlier);
                    // Replacing a preset would change it for some readers and not others (specs that extend it resolved against the
                    // original). The file is left out; the preset, and the specs that extend it, stay as they are.
                    if (r.specs.containsKey(name)) {
                        r.problems.add(f + ": model spec '" + name + "' is a preset's name; give it another name, and \"extends\": \""
                                + name + "\" to start from the preset");
                        continue;
                    }
                    node.put("name", name);
                    raw.put(name, node);
                    r.origins.put(name, f);
                } catch (IllegalArgumentException e) {
                    r.markBroken(name, e.getMessage());
                }
            }
        }
        for (String name : List.copyOf(raw.keySet())) {
            if (!raw.containsKey(name)) continue;
            try {
                r.resolve(name, raw, new ArrayDeque<>());
            } catch (IllegalArgumentException e) {
                r.markBroken(name, e.getMessage());
                raw.remove(name);
            }
        }
        return r;
    }

    private void markBroken(String name, String message) {
        if (!broken.containsKey(name)) broken.put(name, message);
        problems.add(message);
    }

    /** What is wrong with each user spec file that was left out, one message each, naming the file. */
    public List<String> problems() { return List.copyOf(problems); }

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
        String name = text(node, "name", "inline spec");
        if (name == null || name.isBlank()) throw new IllegalArgumentException("inline spec needs a \"name\"");
        Map<String, ObjectNode> raw = new LinkedHashMap<>();
        raw.put(name, node);
        return resolve(name, raw, new ArrayDeque<>());
    }

    private static ObjectNode readSpecFile(Path f) {
        try {
            JsonNode node = JSON.readTree(f.toFile());
            if (!(node instanceof ObjectNode o)) throw new IllegalArgumentException(f + ": a model spec must hold a JSON object");
            checkFields(o, f.toString());
            return o;
        } catch (IOException e) {
            String detail = e instanceof com.fasterxml.jackson.core.JsonProcessingException j && j.getLocation() != null
                    ? j.getOriginalMessage() + " (line " + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr() + ")" : e.getMessage();
            throw new IllegalArgumentException(f + ": not valid JSON: " + detail, e);
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
        String where = origins.containsKey(name) ? origins.get(name).toString() : "spec " + name;
        String parentName = text(node, "extends", where);
        ModelSpec parent = null;
        if (parentName != null) {
            if (broken.containsKey(parentName))
                throw new IllegalArgumentException(where + ": \"extends\": '" + parentName + "' is broken (" + broken.get(parentName) + ")");
            if (!raw.containsKey(parentName) && !specs.containsKey(parentName))
                throw new IllegalArgumentException(where + ": \"extends\": unknown model spec '" + parentName + "'; known: " + specs.keySet());
            chain.addLast(name);
            try {
                parent = resolve(parentName, raw, chain);
            } catch (IllegalArgumentException e) {
                int cycle = e.getMessage().indexOf("model spec cycle");
                if (cycle >= 0) throw new IllegalArgumentException(where + ": " + e.getMessage().substring(cycle), e);
                throw new IllegalArgumentException(where + ": \"extends\": '" + parentName + "' is broken (" + e.getMessage() + ")", e);
            } finally {
                chain.removeLast();
            }
        }
        try {
            List<String> regions = new ArrayList<>();
            if (parent != null && !bool(node, "regionsReplace", false, where)) regions.addAll(parent.regions());
            for (String r : regions(node, where)) if (!regions.contains(r)) regions.add(r);
            String source = text(node, "source", where), router = text(node, "routerScore", where);
            ModelSpec spec = new ModelSpec(name, parentName,
                    source != null ? source : where,
                    intField(node, "hidden", parent == null ? 0 : parent.hidden(), where),
                    intField(node, "heads", parent == null ? 0 : parent.heads(), where),
                    intField(node, "kvHeads", parent == null ? 0 : parent.kvHeads(), where),
                    intField(node, "headDim", parent == null ? 0 : parent.headDim(), where),
                    intField(node, "ropeHeadDim", parent == null ? intField(node, "headDim", 0, where) : parent.ropeHeadDim(), where),
                    intField(node, "ffn", parent == null ? 0 : parent.ffn(), where),
                    intField(node, "moeFfn", parent == null ? 0 : parent.moeFfn(), where),
                    intField(node, "experts", parent == null ? 0 : parent.experts(), where),
                    intField(node, "topK", parent == null ? 0 : parent.topK(), where),
                    router != null ? router : parent == null ? null : parent.routerScore(),
                    doubleField(node, "normEps", parent == null ? 1e-5 : parent.normEps(), where),
                    doubleField(node, "ropeTheta", parent == null ? 10000 : parent.ropeTheta(), where),
                    intField(node, "layers", parent == null ? 1 : parent.layers(), where),
                    regions);
            specs.put(name, spec);
            raw.remove(name);
            return spec;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().startsWith(where) ? e.getMessage() : where + ": " + e.getMessage(), e);
        }
    }

    private static int intField(ObjectNode node, String field, int fallback, String where) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return fallback;
        if (!v.isIntegralNumber() || !v.canConvertToInt()) throw new IllegalArgumentException(where + ": \"" + field + "\" must be a whole number, got " + v);
        return v.asInt();
    }

    private static double doubleField(ObjectNode node, String field, double fallback, String where) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return fallback;
        if (!v.isNumber()) throw new IllegalArgumentException(where + ": \"" + field + "\" must be a number, got " + v);
        double d = v.asDouble();
        if (!Double.isFinite(d)) throw new IllegalArgumentException(where + ": \"" + field + "\" must be a finite number, got " + v.asText());
        return d;
    }

    private static String text(ObjectNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isTextual()) throw new IllegalArgumentException(where + ": \"" + field + "\" must be a string, got " + v);
        return v.asText();
    }

    private static boolean bool(ObjectNode node, String field, boolean fallback, String where) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) return fallback;
        if (!v.isBoolean()) throw new IllegalArgumentException(where + ": \"" + field + "\" must be true or false, got " + v);
        return v.asBoolean();
    }

    private static List<String> regions(ObjectNode node, String where) {
        JsonNode v = node.get("regions");
        if (v == null || v.isNull()) return List.of();
        if (!v.isArray()) throw new IllegalArgumentException(where + ": \"regions\" must be a list of region names, got " + v);
        List<String> out = new ArrayList<>();
        for (JsonNode r : v) {
            if (!r.isTextual() || r.asText().isBlank()) throw new IllegalArgumentException(where + ": \"regions\" entries must be region names, got " + r);
            out.add(r.asText());
        }
        return out;
    }

    public ModelSpec get(String name) {
        ModelSpec s = specs.get(name);
        if (s != null) return s;
        if (broken.containsKey(name)) throw new IllegalArgumentException("model spec '" + name + "' is broken: " + broken.get(name));
        throw new IllegalArgumentException("unknown model spec '" + name + "'; known: " + specs.keySet());
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
     * Every spec that runs {@code region} (workflow step 9: a region enabled in a config reaches every
     * config that extends it, transitively), each with the ancestor that enables it; a child that
     * replaced its regions without it is not reached. Presets first, then user specs, in load order.
     */
    public List<RegionReach> reachOf(String region) {
        if (region == null || region.isBlank()) throw new IllegalArgumentException("which region? reach needs a region name, e.g. q_norm_rope");
        List<RegionReach> out = new ArrayList<>();
        for (ModelSpec s : specs.values()) {
            if (!s.regions().contains(region)) continue;
            ModelSpec origin = s;
            while (origin.parent() != null && specs.containsKey(origin.parent()) && specs.get(origin.parent()).regions().contains(region))
                origin = specs.get(origin.parent());
            out.add(new RegionReach(s.name(), origin.name()));
        }
        return out;
    }

    /** {@link #reachOf(String)} limited to {@code spec} and its descendants (the change is enabled in {@code spec}). */
    public List<RegionReach> reachOf(String region, String spec) {
        Set<String> family = new HashSet<>(List.of(get(spec).name()));
        for (ModelSpec d : descendants(spec)) family.add(d.name());
        return reachOf(region).stream().filter(r -> family.contains(r.spec())).toList();
    }

    /** Every region name some spec enables, sorted. */
    public SortedSet<String> regions() {
        SortedSet<String> out = new TreeSet<>();
        for (ModelSpec s : specs.values()) out.addAll(s.regions());
        return out;
    }
}
