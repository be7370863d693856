package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * What the harness found when it checked the analyst's model before any timing: the file imports,
 * {@code build} returns an nn.Module, the inputs match its forward by count, name and dtype, and one
 * forward without grad runs on them. A failed check throws a {@link TorchException} whose message
 * names the file, the function and the input (and the line of the analyst's code that raised).
 */
public record ModelCheck(ModelEntry entry, long tokens, String moduleType, long parameters, String forward, int blocks, String blockType,
                         String blocksError, List<List<Long>> outputs) {
    public ModelCheck {
        outputs = List.copyOf(outputs);
    }

    /** Checks {@code entry} built for {@code tokens} tokens on {@code inputs}; {@code blocks} names the block container (null: found). */
    public static ModelCheck run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, String blocks) {
        return run(bridge, entry, inputs, tokens, blocks, StepLimits.CHECK);
    }

    /**
     * As {@link #run(TorchBridge, ModelEntry, List, long, String)}; the import, build and forward may each take
     * {@code limits}' step seconds: a model stuck past them fails naming the line it was stuck on.
     */
    public static ModelCheck run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, String blocks, StepLimits limits) {
        return run(bridge, entry, inputs, tokens, blocks, limits, "");
    }

    /**
     * As above; {@code inputsHint} ({@link InputSpecs#hint}: what each symbol of the inputs resolved to) ends the error of a
     * forward that fails, which is mostly a shape the model refuses.
     */
    public static ModelCheck run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, String blocks, StepLimits limits,
                                 String inputsHint) {
        return run(bridge, entry, inputs, tokens, blocks, List.of(), limits, inputsHint);
    }

    /** As above; each of {@code regions} (model.NAME.NAME, the plan's --regions) must name a function of the model file. */
    public static ModelCheck run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, String blocks, List<String> regions,
                                 StepLimits limits, String inputsHint) {
        ObjectNode req = limits.put(request("model_check", entry, inputs, tokens)).put("inputsHint", inputsHint == null ? "" : inputsHint);
        if (blocks != null && !blocks.isBlank()) req.put("blocks", blocks);
        var regionList = req.putArray("regions");
        for (String r : regions) regionList.add(r);
        JsonNode r;
        try {
            r = bridge.call(req, "model check", new TorchBridge.Watch(gluelab.progress.Progress.NONE, p -> {}, limits.silence(0)));
        } catch (TorchException e) {
            // A failure's message names the file and function already; a dead process's does not (its progress lines say what it was doing).
            if (e.kind() != TorchException.Kind.CRASHED) throw e;
            throw new TorchException(e.kind(), "model check of " + entry.shortName() + ": the torch harness's Python process " + bridge.ended(), null);
        }
        List<List<Long>> outs = new ArrayList<>();
        for (JsonNode o : r.path("outputs")) {
            List<Long> shape = new ArrayList<>();
            o.forEach(d -> shape.add(d.asLong()));
            outs.add(shape);
        }
        return new ModelCheck(entry, tokens, r.path("moduleType").asText(), r.path("parameters").asLong(), r.path("forward").asText(),
                r.path("blocks").asInt(), r.path("blockType").asText(), r.path("blocksError").asText(), outs);
    }

    static ObjectNode request(String cmd, ModelEntry entry, List<TensorSpec> inputs, long tokens) {
        ObjectNode req = TorchBridge.request(cmd).put("file", entry.file().toString()).put("function", entry.function()).put("tokens", tokens);
        req.set("inputs", Replies.inputs(inputs));
        return req;
    }

    public String describe() {
        return entry.shortName() + " builds " + moduleType + " (" + String.format("%,d", parameters) + " parameters), forward" + forward
                + " -> " + outputs + "; " + (blocks > 0 ? blocks + " repeated " + blockType + " blocks" : "no repeated blocks" + (blocksError.isBlank() ? "" : " (" + blocksError + ")"));
    }
}
