package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.files.Json;
import gluelab.ops.Replay;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Measurement;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The analyst's model as written ({@link #BASELINE}) and fixed by each of some {@link ModelFix}es,
 * timed fwd+bwd in one harness process, interleaved per token count (so every variant meets the same
 * machine), with raw samples and each variant's compile accounting; with {@code graphs} on CUDA, each
 * also as a CUDA-graph replay of the whole step. A variant that fails (a graph break under fullgraph,
 * the recompile limit, OOM, an exception in the analyst's code) is a row with its reason. Bad input in
 * any fix (a swap target that does not exist, a replacement that does not import, an unknown Inductor
 * option) throws before anything is timed.
 */
public record ModelVariantTiming(String model, TorchVersions versions, long pid, List<Row> rows) {
    public static final String BASELINE = "baseline";

    public ModelVariantTiming {
        rows = List.copyOf(rows);
    }

    /**
     * One variant at one token count and launch kind; {@code run} is null when it failed. {@code sharedParameters}: how many
     * of the variant's parameters are the baseline model's own tensors (tied where name, shape and dtype match), so the two
     * run on the same weights and a model at real dims is on the device once.
     */
    public record Row(String variant, long tokens, Replay replay, String error, Measurement run, CompileReport compile, int sharedParameters) {
        public boolean failed() { return !error.isEmpty() || run == null; }

        public double us() { return run == null ? Double.NaN : run.medianMicros(); }
    }

    /** The model with {@code fixes} at each of {@code inputsAt}'s token counts, launched normally (and as graph replays when {@code graphs}). */
    public static ModelVariantTiming run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelFix> fixes, boolean graphs,
                                         TimingConfig timing, long flushBytes, Progress progress) {
        ObjectNode req = ModelCheck.request(graphs ? "model_confirm" : "model_fix", entry, inputsAt.values().iterator().next(), inputsAt.keySet().iterator().next())
                .put("device", bridge.device()).put("flushBytes", flushBytes);
        ArrayNode at = req.putArray("at");
        inputsAt.forEach((t, ins) -> at.addObject().put("tokens", t).set("inputs", Replies.inputs(ins)));
        ArrayNode vs = req.putArray("variants");
        fixes.forEach(f -> vs.add(Json.MAPPER.valueToTree(f)));
        req.set("timing", Replies.timing(timing));
        JsonNode reply = bridge.call(req, "fixes of " + entry.shortName(), progress);
        List<Row> rows = new ArrayList<>();
        for (JsonNode r : reply.path("rows")) {
            String variant = r.path("variant").asText();
            long tokens = r.path("tokens").asLong();
            Replay replay = Replay.parse(r.path("replay").asText("direct"));
            String label = entry.shortName() + "/" + variant + "@" + tokens + (replay == Replay.GRAPH ? " (graph)" : "");
            Measurement m = r.path("samples").isEmpty() ? null : Replies.measurement(label, timing, r);
            rows.add(new Row(variant, tokens, replay, r.path("error").asText(), m, Replies.compile(label, r), r.path("sharedParameters").asInt()));
        }
        return new ModelVariantTiming(entry.toString(), bridge.versions(), reply.path("pid").asLong(), rows);
    }

    public Optional<Row> row(String variant, long tokens, Replay replay) {
        return rows.stream().filter(r -> r.variant().equals(variant) && r.tokens() == tokens && r.replay() == replay).findFirst();
    }
}
