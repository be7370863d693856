package gluelab.sweep;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import gluelab.bench.Tokens;
import gluelab.model.ModelSpec;
import gluelab.model.SpecRegistry;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.files.Json;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;

import java.nio.file.Path;
import java.util.*;

/**
 * Reads a sweep plan as analysts write it (JSON; lists may be comma strings, "ops": "all"):
 * <pre>{"models": "llama-3-8b", "ops": "all", "tokens": "2k,4k", "passes": "fwd,bwd", "processes": 3}</pre>
 * Every error names the file and the field, before any work starts.
 */
public final class PlanFile {
    static final Set<String> FIELDS = new LinkedHashSet<>(List.of(
            "models", "ops", "tokens", "passes", "variants", "dtype", "timing", "check", "processes"));
    static final Set<String> TIMING_FIELDS = new LinkedHashSet<>(List.of(
            "mode", "warmupSeconds", "minSamples", "minSeconds", "maxNoise", "timeoutSeconds"));

    private PlanFile() {}

    public static SweepPlan read(Path file, SpecRegistry specs) {
        return parse(gluelab.files.TextInput.read(file, "sweep plan"), file.toString(), specs);
    }

    public static SweepPlan parse(String text, String source, SpecRegistry specs) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new IllegalArgumentException("sweep plan " + source + (loc != null ? " line " + loc.getLineNr() + ", column " + loc.getColumnNr() : "")
                    + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) throw new IllegalArgumentException("sweep plan " + source + " must be a JSON object");
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) throw new IllegalArgumentException("sweep plan " + source + ": unknown field '" + f + "'; known: " + FIELDS);
        }
        Field at = new Field(source, root);
        List<ModelSpec> models = at.list("models", List.of("llama-3-8b")).stream().map(m -> at.get("models", () -> specs.get(m))).toList();
        List<String> listed = at.list("ops", List.of("all"));
        List<String> ops = listed.equals(List.of("all")) ? Catalogue.names() : at.get("ops", () -> listed.stream().map(o -> Catalogue.parse(o).name()).toList());
        List<Long> tokens = at.get("tokens", () -> Tokens.parse(String.join(",", at.list("tokens", List.of("2048")))));
        List<String> passes = at.get("passes", () -> at.list("passes", List.of("fwd")).stream().map(p -> Pass.parse(p).id()).toList());
        List<String> variants = at.get("variants", () -> at.list("variants", List.of("eager", "fused")).stream().map(v -> Variant.parse(v).id()).toList());
        String dtype = at.get("dtype", () -> DType.parse(at.text("dtype", "bf16")).id());
        TimingConfig timing = at.get("timing", () -> timing(root.get("timing")));
        long check = at.integer("check", 16);
        int processes = (int) at.integer("processes", 1);
        return at.get("plan", () -> new SweepPlan(models, ops, tokens, passes, variants, dtype, timing, check, processes));
    }

    private static TimingConfig timing(JsonNode node) {
        if (node == null || node.isNull()) return TimingConfig.quick();
        if (node.isTextual()) {
            return switch (node.asText()) {
                case "quick" -> TimingConfig.quick();
                case "default" -> TimingConfig.defaults();
                default -> throw new IllegalArgumentException("'" + node.asText() + "' is not a timing preset; use quick, default or an object with " + TIMING_FIELDS);
            };
        }
        if (!node.isObject()) throw new IllegalArgumentException("must be quick, default or an object with " + TIMING_FIELDS);
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!TIMING_FIELDS.contains(f)) throw new IllegalArgumentException("unknown field '" + f + "'; known: " + TIMING_FIELDS);
        }
        TimingConfig base = TimingConfig.quick();
        StopRule s = base.stop();
        Mode mode = node.has("mode") ? Mode.parse(node.get("mode").asText()) : base.mode();
        StopRule stop = new StopRule(node.path("minSamples").asInt(s.minSamples()), node.path("minSeconds").asDouble(s.minSeconds()),
                node.path("maxNoise").asDouble(s.maxNoise()), node.path("timeoutSeconds").asDouble(s.timeoutSeconds()), s.maxSamples());
        return new TimingConfig(mode, node.path("warmupSeconds").asDouble(base.warmupSeconds()), stop, base.hotBatch());
    }

    /** Field access that names the file and field in every error. */
    private record Field(String source, JsonNode root) {
        <T> T get(String field, java.util.function.Supplier<T> value) {
            try {
                return value.get();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("sweep plan " + source + (field.equals("plan") ? "" : ", field '" + field + "'") + ": " + e.getMessage(), e);
            }
        }

        List<String> list(String field, List<String> fallback) {
            JsonNode n = root.get(field);
            if (n == null || n.isNull()) return fallback;
            List<String> out = new ArrayList<>();
            if (n.isArray()) n.forEach(x -> out.add(x.asText().trim()));
            else if (n.isValueNode()) for (String p : n.asText().split(",")) out.add(p.trim());
            else throw new IllegalArgumentException("sweep plan " + source + ", field '" + field + "': must be a list or a comma-separated string");
            if (out.isEmpty() || out.stream().anyMatch(String::isEmpty)) {
                throw new IllegalArgumentException("sweep plan " + source + ", field '" + field + "': has an empty entry");
            }
            return out;
        }

        String text(String field, String fallback) {
            JsonNode n = root.get(field);
            if (n == null || n.isNull()) return fallback;
            if (!n.isTextual()) throw new IllegalArgumentException("sweep plan " + source + ", field '" + field + "': must be a string");
            return n.asText().trim();
        }

        long integer(String field, long fallback) {
            JsonNode n = root.get(field);
            if (n == null || n.isNull()) return fallback;
            if (!n.canConvertToLong() || !n.isIntegralNumber()) {
                throw new IllegalArgumentException("sweep plan " + source + ", field '" + field + "': must be a whole number, got " + n);
            }
            return n.asLong();
        }
    }
}
