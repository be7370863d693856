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

    /**
     * The model with {@code fixes} at each of {@code inputsAt}'s token counts, launched normally (and as graph replays when
     * {@code graphs}), under the step limits of the timing's measurement timeout, a harness that dies replaced by a fresh one.
     */
    public static ModelVariantTiming run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelFix> fixes, boolean graphs,
                                         TimingConfig timing, long flushBytes, Progress progress) {
        return run(bridge, entry, inputsAt, fixes, graphs, timing, flushBytes, StepLimits.forMeasurement(timing.stop().timeoutSeconds()), true, progress);
    }

    /**
     * As above: each variant's build and first fwd+bwd step (its compile excluded, up to the compile limit), and the timed steps
     * of all together, run under {@code limits}, so a variant stuck past them is its row's error naming the line, and the
     * others are timed without it. One request per token count: when the harness dies, the rows of the counts before are kept;
     * with {@code restart}, the variant it died in is a failed row saying how the process ended (every variant at that count,
     * when it died with the model as written or while timing them all), and the others run in a fresh harness; without,
     * the call throws (step 07: a process that dies is FAILED, and none of its numbers is used).
     */
    public static ModelVariantTiming run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelFix> fixes, boolean graphs,
                                         TimingConfig timing, long flushBytes, StepLimits limits, boolean restart, Progress progress) {
        List<Row> rows = new ArrayList<>();
        TorchBridge current = bridge;
        long pid = bridge.pid();
        String noHarness = null;
        try {
            if (restart && !current.alive()) current = bridge.restarted();
            for (var at : inputsAt.entrySet()) {
                List<ModelFix> left = new ArrayList<>(fixes);
                while (true) {
                    if (noHarness != null) {
                        rows.add(failed(entry, BASELINE, at.getKey(), noHarness));
                        for (ModelFix f : left) rows.add(failed(entry, f.name(), at.getKey(), noHarness));
                        break;
                    }
                    ObjectNode req = request(current, entry, at.getKey(), at.getValue(), left, graphs, timing, flushBytes, limits);
                    int subjects = (1 + left.size()) * (graphs && current.device().equals("cuda") ? 2 : 1);
                    String[] inFlight = {null};
                    TorchBridge.Watch watch = new TorchBridge.Watch(progress, p -> inFlight[0] = p.path("inFlight").asText(null),
                            limits.silence(limits.measuring(timing, subjects)));
                    try {
                        JsonNode reply = current.call(req, "fixes of " + entry.shortName(), watch);
                        pid = reply.path("pid").asLong(current.pid());
                        for (JsonNode r : reply.path("rows")) rows.add(row(entry, timing, r));
                        break;
                    } catch (TorchException e) {
                        if (!restart || e.kind() != TorchException.Kind.CRASHED) throw e;
                        String reason = "the torch harness's Python process " + current.ended();
                        Optional<ModelFix> died = left.stream().filter(f -> f.name().equals(inFlight[0])).findFirst();
                        if (died.isPresent()) {
                            rows.add(failed(entry, died.get().name(), at.getKey(), reason));
                            left.remove(died.get());
                        } else {
                            rows.add(failed(entry, BASELINE, at.getKey(), reason));
                            for (ModelFix f : left) rows.add(failed(entry, f.name(), at.getKey(), BASELINE.equals(inFlight[0]) ? "not timed: the model as written "
                                    + "ended the harness: " + reason : reason));
                        }
                        if (current != bridge) current.close();
                        try {
                            current = bridge.restarted();
                        } catch (TorchException startFailed) {
                            // the rows so far are kept; what is left is named, not lost with an exception
                            noHarness = "not run: no fresh torch harness after the last one ended: " + startFailed.getMessage();
                            if (died.isPresent()) continue;
                        }
                        if (died.isEmpty()) break;
                    }
                }
            }
        } finally {
            if (current != bridge) current.close();
        }
        return new ModelVariantTiming(entry.toString(), bridge.versions(), pid, rows);
    }

    private static ObjectNode request(TorchBridge bridge, ModelEntry entry, long tokens, List<TensorSpec> inputs, List<ModelFix> fixes, boolean graphs,
                                      TimingConfig timing, long flushBytes, StepLimits limits) {
        ObjectNode req = ModelCheck.request(graphs ? "model_confirm" : "model_fix", entry, inputs, tokens).put("device", bridge.device()).put("flushBytes", flushBytes);
        req.putArray("at").addObject().put("tokens", tokens).set("inputs", Replies.inputs(inputs));
        ArrayNode vs = req.putArray("variants");
        fixes.forEach(f -> vs.add(Json.MAPPER.valueToTree(f)));
        req.set("timing", Replies.timing(timing));
        return limits.put(req);
    }

    private static Row row(ModelEntry entry, TimingConfig timing, JsonNode r) {
        String variant = r.path("variant").asText();
        long tokens = r.path("tokens").asLong();
        Replay replay = Replay.parse(r.path("replay").asText("direct"));
        String label = entry.shortName() + "/" + variant + "@" + tokens + (replay == Replay.GRAPH ? " (graph)" : "");
        Measurement m = r.path("samples").isEmpty() ? null : Replies.measurement(label, timing, r);
        return new Row(variant, tokens, replay, r.path("error").asText(), m, Replies.compile(label, r), r.path("sharedParameters").asInt());
    }

    private static Row failed(ModelEntry entry, String variant, long tokens, String error) {
        CompileReport none = Replies.compile(entry.shortName() + "/" + variant + "@" + tokens, com.fasterxml.jackson.databind.node.MissingNode.getInstance());
        return new Row(variant, tokens, Replay.DIRECT, error, null, none, 0);
    }

    public Optional<Row> row(String variant, long tokens, Replay replay) {
        return rows.stream().filter(r -> r.variant().equals(variant) && r.tokens() == tokens && r.replay() == replay).findFirst();
    }
}
