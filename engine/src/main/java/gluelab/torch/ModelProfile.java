package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.floor.OpKind;
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
    /** fwd+bwd steps each tree runs under the profiler (after its warm-up); its ops' times are their mean per step. */
    public static final int STEPS = 3;

    public ModelProfile {
        trees = List.copyOf(trees);
    }

    /** One tree's profile; {@code error} is set (and nothing else) when it failed. */
    public record TreeProfile(ModelTree tree, String error, String trace, double stepUs, List<SourceRow> rows, List<KeyAverage> keyAverages) {
        public TreeProfile {
            rows = List.copyOf(rows);
            keyAverages = keyAverages == null ? List.of() : List.copyOf(keyAverages);
        }

        public boolean failed() { return !error.isEmpty(); }
    }

    /**
     * An op at a place in the analyst's code ({@code Attention.forward (llama3.py:92)}: the statement that
     * called it in the eager tree, the def line of its function elsewhere; {@code RMSNorm (module)} or the
     * compiled region's range where no frame of the model file is there; empty when it ran outside the
     * model), per step: calls, self time, the bytes its tensor inputs hold, what it is ({@code kind}), its
     * FLOPs (GEMMs and attention, from the recorded shapes as torch.utils.flop_counter counts them) and the
     * dtype of its first input.
     */
    public record SourceRow(String location, String op, String pass, String shapes, int calls, double us, long bytes, OpKind kind, long flops,
                            String dtype) {
        public SourceRow {
            kind = kind == null ? OpKind.GLUE : kind;
            dtype = dtype == null ? "" : dtype;
        }
    }

    /**
     * torch's own totals of the profiled run ({@code prof.key_averages()}, all steps): an op, a kernel ({@code device} "cuda"), or a
     * range a library put on the device's timeline ({@code annotation}: Inductor's "## Call CompiledFxGraph ... ##"), which is no kernel
     * and which torch leaves out of its own device totals too.
     */
    public record KeyAverage(String key, int count, double cpuUs, double selfCpuUs, double deviceUs, double selfDeviceUs, String device, boolean annotation) {}

    /** Profiles {@code trees} at {@code tokens} under the {@link StepLimits#standard() standard} limits; traces go to {@code traceDir}/TREE.json.gz. */
    public static ModelProfile run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, List<ModelTree> trees,
                                   List<String> regions, String blocks, Path traceDir, Progress progress) {
        return run(bridge, entry, inputs, tokens, trees, regions, blocks, traceDir, StepLimits.standard(), progress);
    }

    /**
     * As above, the model's build and first step, its warm-up steps and its profiled steps each under {@code limits} (the first
     * step's compile excluded, up to the compile limit): a tree stuck past them is a failed tree naming the line it was stuck
     * on. Each tree comes back as it is done, so a harness that dies costs the tree it died in (failed, saying how the
     * process ended) and the trees after it are profiled in a fresh harness.
     */
    public static ModelProfile run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, List<ModelTree> trees,
                                   List<String> regions, String blocks, Path traceDir, StepLimits limits, Progress progress) {
        return run(bridge, entry, inputs, tokens, trees, regions, blocks, traceDir, limits, KeptUnits.none(), progress);
    }

    /** As above, the first trees given by {@code kept} (in {@code trees}' order) and not profiled again; {@code kept} is told the trees so far after each. */
    public static ModelProfile run(TorchBridge bridge, ModelEntry entry, List<TensorSpec> inputs, long tokens, List<ModelTree> trees,
                                   List<String> regions, String blocks, Path traceDir, StepLimits limits, KeptUnits<TreeProfile> kept, Progress progress) {
        ObjectNode req = ModelCheck.request("model_profile", entry, inputs, tokens).put("traceDir", traceDir.toAbsolutePath().toString())
                .put("blocks", blocks == null ? "" : blocks).put("steps", STEPS);
        ArrayNode ts = req.putArray("trees");
        trees.forEach(t -> ts.add(t.id()));
        ArrayNode rs = req.putArray("regions");
        regions.forEach(rs::add);
        limits.put(req);
        for (int i = 0; i < kept.done().size(); i++) {
            if (i >= trees.size() || kept.done().get(i).tree() != trees.get(i))
                throw new IllegalArgumentException("kept tree " + i + " (" + kept.done().get(i).tree().id() + ") is not the plan's tree " + i);
        }
        List<TreeProfile> out = new ArrayList<>(kept.done());
        ResumedCall.run(bridge, req, "model profile of " + entry.shortName(), out.size(), trees.size(), progress, limits.silence(0), new ResumedCall.Units() {
            @Override public void part(JsonNode p) {
                out.add(tree(p));
                kept.saved().accept(List.copyOf(out));
            }

            @Override public int failed(int index, String reason) {
                out.add(new TreeProfile(trees.get(index), reason, "", 0, List.of(), List.of()));
                kept.saved().accept(List.copyOf(out));
                return 1;
            }
        });
        return new ModelProfile(FORMAT, entry.toString(), tokens, out);
    }

    private static TreeProfile tree(JsonNode p) {
        List<SourceRow> rows = new ArrayList<>();
        for (JsonNode r : p.path("rows")) {
            rows.add(new SourceRow(r.path("location").asText(), r.path("op").asText(), r.path("pass").asText(), r.path("shapes").asText(),
                    r.path("calls").asInt(), r.path("us").asDouble(), r.path("bytes").asLong(), OpKind.parse(r.path("kind").asText()),
                    r.path("flops").asLong(), r.path("dtype").asText()));
        }
        List<KeyAverage> averages = new ArrayList<>();
        for (JsonNode k : p.path("keyAverages")) {
            averages.add(new KeyAverage(k.path("key").asText(), k.path("count").asInt(), k.path("cpuUs").asDouble(), k.path("selfCpuUs").asDouble(),
                    k.path("deviceUs").asDouble(), k.path("selfDeviceUs").asDouble(), k.path("device").asText(), k.path("annotation").asBoolean()));
        }
        return new TreeProfile(ModelTree.parse(p.path("tree").asText()), p.path("error").asText(), p.path("trace").asText(), p.path("stepUs").asDouble(),
                rows, averages);
    }

    /** Every tree failed: nothing was profiled. */
    public boolean nothingProfiled() { return trees.stream().allMatch(TreeProfile::failed); }

    public java.util.Optional<TreeProfile> tree(ModelTree tree) { return trees.stream().filter(t -> t.tree() == tree).findFirst(); }
}
