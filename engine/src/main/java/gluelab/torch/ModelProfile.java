package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The analyst's model profiled by the harness (no script of theirs): each tree built, compiled and
 * warmed up, then a few fwd+bwd steps under torch.profiler (CPU activity, and CUDA on a GPU;
 * record_shapes, with_stack, with_modules). The Chrome trace of each tree is written for the trace
 * import; each op's self time per step (on a GPU its kernels' time) is given to the line of the model
 * file it ran under, a backward op to the line of its forward op (autograd's sequence number).
 */
public record ModelProfile(int format, String model, long tokens, List<TreeProfile> trees) {
    public static final int FORMAT = 1;

    public ModelProfile {
        trees = List.copyOf(trees);
    }

    /** One tree's profile; {@code error} is set (and nothing else) when it failed. */
    public record TreeProfile(ModelTree tree, String error, String trace, double stepUs, List<SourceRow> rows) {
        public TreeProfile {
            rows = List.copyOf(rows);
        }

        public boolean failed() { return !error.isEmpty(); }
    }

    /**
     * An op at a place in the analyst's code ({@code RMSNorm.forward (llama3.py:70)}; empty when it ran
     * outside the model file), per step: calls, self time, and the bytes its tensor inputs hold.
     */
    public record SourceRow(String location, String op, String pass, String shapes, int calls, double us, long bytes) {}

    /** Profiles {@code trees} at {@code tokens}; traces go to {@code traceDir}/TREE.json.gz. */
    public static ModelProfile run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, List<ModelTree> trees,
                                   List<String> regions, String blocks, Path traceDir, Progress progress) {
        ObjectNode req = ModelCheck.request("model_profile", entry, inputs, tokens).put("traceDir", traceDir.toAbsolutePath().toString())
                .put("blocks", blocks == null ? "" : blocks);
        ArrayNode ts = req.putArray("trees");
        trees.forEach(t -> ts.add(t.id()));
        ArrayNode rs = req.putArray("regions");
        regions.forEach(rs::add);
        JsonNode reply = bridge.call(req, "model profile of " + entry.shortName(), progress);
        List<TreeProfile> out = new ArrayList<>();
        for (JsonNode p : reply.path("profiles")) {
            List<SourceRow> rows = new ArrayList<>();
            for (JsonNode r : p.path("rows")) {
                rows.add(new SourceRow(r.path("location").asText(), r.path("op").asText(), r.path("pass").asText(), r.path("shapes").asText(),
                        r.path("calls").asInt(), r.path("us").asDouble(), r.path("bytes").asLong()));
            }
            out.add(new TreeProfile(ModelTree.parse(p.path("tree").asText()), p.path("error").asText(), p.path("trace").asText(),
                    p.path("stepUs").asDouble(), rows));
        }
        return new ModelProfile(FORMAT, entry.toString(), tokens, out);
    }

    public java.util.Optional<TreeProfile> tree(ModelTree tree) { return trees.stream().filter(t -> t.tree() == tree).findFirst(); }
}
