package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The graphs dynamo compiled for the analyst's model, call by call: each tree that compiles parts of
 * its own (the plan's regions with fullgraph=True, or each repeated block) built once, then called at
 * every token count in a training pass (fwd+bwd) and a {@code torch.no_grad} pass, in one dynamo cache,
 * as a run that meets those shapes would. Per region: the graphs dynamo holds for its code object (its
 * cache entries, which the recompile limit counts). Per call: where in the model file it was called,
 * the graphs it compiled (dynamo's unique_graphs counter and its compile ids), the guard that failed
 * when it recompiled, and the recompile-limit warning when it hit the limit (from dynamo's log).
 */
public record ModelGraphs(int format, String model, int limit, TorchVersions versions, List<TreeGraphs> trees) {
    public static final int FORMAT = 1;

    public ModelGraphs {
        trees = List.copyOf(trees);
    }

    /** One tree; {@code error} names what stopped it (the file and line of the model's code), the calls made until then are kept. */
    public record TreeGraphs(ModelTree tree, String error, List<RegionCount> regions, List<CallGraphs> calls, String log) {
        public TreeGraphs {
            regions = List.copyOf(regions);
            calls = List.copyOf(calls);
        }

        public boolean failed() { return !error.isEmpty(); }
    }

    /** A region (a function of the plan, or {@code block CLASS}), where it is defined, and the graphs dynamo holds for it. */
    public record RegionCount(String region, String defined, int graphs) {}

    /**
     * One call of a region: its call site ({@code llama3.py:98 in forward}), token count, grad mode ({@code grad} false: under
     * torch.no_grad), the graphs it compiled and their compile ids, the graphs held after it, the guard that failed (when it
     * recompiled), dynamo's recompile-limit warning (when it hit the limit) and the error it raised.
     */
    public record CallGraphs(String region, String site, long tokens, boolean grad, int compiled, List<String> compileIds, int graphsHeld,
                             String guard, String limitHit, String error) {
        public CallGraphs {
            compileIds = List.copyOf(compileIds);
        }
    }

    /**
     * How the step compiles: the trees, dynamic shapes ({@code null}: torch's automatic dynamic shapes; false: a graph per
     * shape, as CUDA-graph runs compile), the backend, the no_grad pass, and the recompile limit (0: torch's own).
     */
    public record Options(List<ModelTree> trees, Boolean dynamic, String backend, boolean noGradPass, int recompileLimit) {
        public Options {
            trees = List.copyOf(trees);
            if (trees.isEmpty()) throw new IllegalArgumentException("graph budget: no trees to count (regions, per-block)");
            for (ModelTree t : trees) {
                if (t != ModelTree.REGIONS && t != ModelTree.PER_BLOCK)
                    throw new IllegalArgumentException("graph budget: tree " + t.id() + " compiles no regions of its own; count regions or per-block");
            }
            if (backend == null || backend.isBlank()) backend = "inductor";
            if (recompileLimit < 0) throw new IllegalArgumentException("recompile limit must be >= 1 (0: torch's own), got " + recompileLimit);
        }
    }

    /** As the full {@code run}, under the {@link StepLimits#standard() standard} limits. */
    public static ModelGraphs run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<String> regions, String blocks,
                                  Options options, Progress progress) {
        return run(bridge, entry, inputsAt, regions, blocks, options, StepLimits.standard(), progress);
    }

    /**
     * Counts the graphs of each tree of {@code options}; the model's build and each pass (compile excluded, up to the compile
     * limit) run under {@code limits}: a pass stuck past them stops its tree, naming the line, the calls before it kept. Each
     * tree comes back as it is done, so a harness that dies costs the tree it died in (stopped, saying how the process ended)
     * and the trees after it are counted in a fresh harness.
     */
    public static ModelGraphs run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<String> regions, String blocks,
                                  Options options, StepLimits limits, Progress progress) {
        if (inputsAt.isEmpty()) throw new IllegalArgumentException("graph budget: no token counts");
        ObjectNode req = ModelCheck.request("model_graphs", entry, inputsAt.values().iterator().next(), inputsAt.keySet().iterator().next())
                .put("blocks", blocks == null ? "" : blocks).put("backend", options.backend()).put("noGradPass", options.noGradPass())
                .put("recompileLimit", options.recompileLimit());
        if (options.dynamic() != null) req.put("dynamic", options.dynamic());
        ArrayNode at = req.putArray("at");
        inputsAt.forEach((t, ins) -> at.addObject().put("tokens", t).set("inputs", Replies.inputs(ins)));
        ArrayNode ts = req.putArray("trees");
        options.trees().forEach(t -> ts.add(t.id()));
        ArrayNode rs = req.putArray("regions");
        regions.forEach(rs::add);
        limits.put(req);
        List<TreeGraphs> trees = new ArrayList<>();
        int[] limit = {options.recompileLimit()};
        ResumedCall.run(bridge, req, "graph budget of " + entry.shortName(), options.trees().size(), progress, limits.silence(0), new ResumedCall.Units() {
            @Override public void part(JsonNode t) {
                trees.add(tree(t));
                limit[0] = t.path("limit").asInt(limit[0]);
            }

            @Override public int failed(int index, String reason) {
                trees.add(new TreeGraphs(options.trees().get(index), reason, List.of(), List.of(), ""));
                return 1;
            }
        });
        return new ModelGraphs(FORMAT, entry.toString(), limit[0], bridge.versions(), trees);
    }

    private static TreeGraphs tree(JsonNode t) {
        List<RegionCount> counts = new ArrayList<>();
        for (JsonNode r : t.path("regions")) counts.add(new RegionCount(r.path("region").asText(), r.path("defined").asText(), r.path("graphs").asInt()));
        List<CallGraphs> calls = new ArrayList<>();
        for (JsonNode c : t.path("calls")) {
            List<String> ids = new ArrayList<>();
            c.path("compileIds").forEach(i -> ids.add(i.asText()));
            calls.add(new CallGraphs(c.path("region").asText(), c.path("site").asText(), c.path("tokens").asLong(), !"no_grad".equals(c.path("mode").asText()),
                    c.path("compiled").asInt(), ids, c.path("graphsHeld").asInt(), c.path("guard").asText(), c.path("limitHit").asText(), c.path("error").asText()));
        }
        return new TreeGraphs(ModelTree.parse(t.path("tree").asText()), t.path("error").asText(), counts, calls, t.path("log").asText());
    }

    /** Every tree stopped before it made a call: nothing was counted. */
    public boolean nothingCounted() { return trees.stream().allMatch(t -> t.failed() && t.calls().isEmpty()); }

    public Optional<TreeGraphs> tree(ModelTree tree) { return trees.stream().filter(t -> t.tree() == tree).findFirst(); }
}
