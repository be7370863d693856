package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.progress.Progress;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Measurement;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The analyst's model timed fwd+bwd as each {@link ModelTree} at each token count, in one harness:
 * wall time (raw samples) as a normal launch and as a CUDA-graph replay of the whole fwd+bwd step
 * ({@link GraphReplay}), kernel time and kernel count per step (CUDA: torch.profiler's kernels; each
 * skipped with the reason on the CPU), peak memory (CUDA), compile seconds, graphs, graph breaks and
 * recompiles. A tree that fails (a graph break under fullgraph, no blocks, the recompile limit, OOM,
 * an exception in the model) is a row with its reason, and no ratio is formed against it. The trees
 * run one after another, each built fresh: two copies of a real-dims model need not fit at once.
 */
public record ModelBaselines(int format, String model, TorchVersions versions, List<Row> rows) {
    public static final int FORMAT = 1;

    public ModelBaselines {
        rows = List.copyOf(rows);
    }

    /**
     * The tree's step captured as one CUDA graph and replayed: {@code run} null when it was skipped
     * ({@code skip}: the CPU has no graphs; or the normal launch failed) or its capture failed ({@code error}).
     */
    public record GraphReplay(Measurement run, String error, String skip) {
        public static final GraphReplay NOT_RUN = new GraphReplay(null, "", "the normal launch failed");

        public boolean failed() { return !error.isEmpty(); }

        public double wallUs() { return run == null ? Double.NaN : run.medianMicros(); }
    }

    /** One tree at one token count; {@code run} is null when it failed ({@code error} says why). */
    public record Row(ModelTree tree, long tokens, String error, Measurement run, CompileReport compile, int blocks, String blockType,
                      double kernelSeconds, int kernels, String kernelSkip, long peakBytes, String peakSkip, GraphReplay graph) {
        public Row {
            graph = graph == null ? GraphReplay.NOT_RUN : graph;
        }

        public boolean failed() { return !error.isEmpty() || run == null; }

        public double wallUs() { return run == null ? Double.NaN : run.medianMicros(); }

        public double kernelUs() { return kernelSeconds * 1e6; }
    }

    /** As the full {@code run}, with the step limits of the timing's measurement timeout ({@link StepLimits#forMeasurement}). */
    public static ModelBaselines run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelTree> trees,
                                     List<String> regions, String blocks, TimingConfig timing, long flushBytes, Progress progress) {
        return run(bridge, entry, inputsAt, trees, regions, blocks, timing, flushBytes, StepLimits.forMeasurement(timing.stop().timeoutSeconds()), progress);
    }

    /**
     * Times {@code trees} of {@code entry} at each token count; {@code inputsAt} gives the inputs at a count.
     * {@code regions}: the functions the regions tree compiles; {@code blocks}: the block container (empty: found).
     * A step past its {@code limits} is a FAILED row naming where the model was stuck. Each row comes back as it is
     * done, so a harness process that dies (os._exit, a crash in C, or ended by {@code limits}' silence) loses none
     * before it: the tree it died in is a FAILED row saying how it ended, and the trees after it run in a fresh
     * process (one tree's crash, such as a compiler's, need not cost the others their rows).
     */
    public static ModelBaselines run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelTree> trees,
                                     List<String> regions, String blocks, TimingConfig timing, long flushBytes, StepLimits limits, Progress progress) {
        return run(bridge, entry, inputsAt, trees, regions, blocks, timing, flushBytes, limits, KeptUnits.none(), progress);
    }

    /**
     * As above, the first rows given by {@code kept} (the planned jobs' order: token count, then tree) and not run again; {@code kept}
     * is told the rows so far after each row.
     */
    public static ModelBaselines run(TorchBridge bridge, ModelEntry entry, Map<Long, List<TensorSpec>> inputsAt, List<ModelTree> trees,
                                     List<String> regions, String blocks, TimingConfig timing, long flushBytes, StepLimits limits, KeptUnits<Row> kept,
                                     Progress progress) {
        ObjectNode req = ModelCheck.request("model_baselines", entry, inputsAt.values().iterator().next(), inputsAt.keySet().iterator().next())
                .put("device", bridge.device()).put("flushBytes", flushBytes).put("blocks", blocks == null ? "" : blocks);
        ArrayNode at = req.putArray("at");
        inputsAt.forEach((t, ins) -> at.addObject().put("tokens", t).set("inputs", Replies.inputs(ins)));
        ArrayNode ts = req.putArray("trees");
        trees.forEach(t -> ts.add(t.id()));
        ArrayNode rs = req.putArray("regions");
        regions.forEach(rs::add);
        req.set("timing", Replies.timing(timing));
        limits.put(req);
        List<Job> jobs = new ArrayList<>();
        for (long t : inputsAt.keySet()) for (ModelTree tree : trees) jobs.add(new Job(tree, t));
        for (int i = 0; i < kept.done().size(); i++) {
            Row k = kept.done().get(i);
            if (i >= jobs.size() || k.tree() != jobs.get(i).tree() || k.tokens() != jobs.get(i).tokens())
                throw new IllegalArgumentException("kept row " + i + " (" + k.tree().id() + " @ " + k.tokens() + " tokens) is not the plan's job " + i);
        }
        List<Row> rows = new ArrayList<>(kept.done());
        ResumedCall.run(bridge, req, "model baselines of " + entry.shortName(), rows.size(), jobs.size(), progress,
                limits.silence(timing.warmupSeconds() + timing.stop().timeoutSeconds()), new ResumedCall.Units() {
                    @Override public void part(JsonNode part) {
                        rows.add(row(entry, timing, part));
                        kept.saved().accept(List.copyOf(rows));
                    }

                    @Override public int failed(int index, String reason) {
                        rows.add(jobs.get(index).failed(entry, reason));
                        kept.saved().accept(List.copyOf(rows));
                        return 1;
                    }
                });
        return new ModelBaselines(FORMAT, entry.toString(), bridge.versions(), rows);
    }

    /** One planned tree at one token count, in the harness's order. */
    private record Job(ModelTree tree, long tokens) {
        Row failed(ModelEntry entry, String error) {
            CompileReport none = Replies.compile(entry.shortName() + "/" + tree.id() + "@" + tokens, com.fasterxml.jackson.databind.node.MissingNode.getInstance());
            return new Row(tree, tokens, error, null, none, 0, "", Double.NaN, 0, "", -1, "", GraphReplay.NOT_RUN);
        }
    }

    private static Row row(ModelEntry entry, TimingConfig timing, JsonNode r) {
        ModelTree tree = ModelTree.parse(r.path("tree").asText());
        long tokens = r.path("tokens").asLong();
        String label = entry.shortName() + "/" + tree.id() + "@" + tokens;
        Measurement m = r.path("samples").isEmpty() ? null : Replies.measurement(label, timing, r);
        CompileReport c = Replies.compile(label, r);
        return new Row(tree, tokens, r.path("error").asText(), m, c, r.path("blocks").asInt(), r.path("blockType").asText(),
                r.path("kernelSeconds").isNumber() ? r.path("kernelSeconds").asDouble() : Double.NaN, r.path("kernels").asInt(),
                r.path("kernelSkip").asText(), r.path("peakBytes").isNumber() ? r.path("peakBytes").asLong() : -1, r.path("peakSkip").asText(),
                graph(label, timing, r.path("graph")));
    }

    static GraphReplay graph(String label, TimingConfig timing, JsonNode g) {
        if (!g.isObject()) return GraphReplay.NOT_RUN;
        Measurement m = g.path("samples").isEmpty() ? null : Replies.measurement(label + " (graph)", timing, g);
        return new GraphReplay(m, g.path("error").asText(), g.path("skip").asText());
    }

    /** The row of {@code tree} at {@code tokens}, if it was planned. */
    public Optional<Row> row(ModelTree tree, long tokens) {
        return rows.stream().filter(r -> r.tree() == tree && r.tokens() == tokens).findFirst();
    }

    /** Eager's wall time over the tree's (NaN unless both ran). */
    public double speedupOverEager(Row row) {
        Optional<Row> eager = row(ModelTree.EAGER, row.tokens());
        if (row.failed() || eager.isEmpty() || eager.get().failed()) return Double.NaN;
        return eager.get().wallUs() / row.wallUs();
    }

    /** Eager's graph replay over the tree's (NaN unless both replayed). */
    public double graphSpeedupOverEager(Row row) {
        Optional<Row> eager = row(ModelTree.EAGER, row.tokens());
        if (row.graph().run() == null || eager.isEmpty() || eager.get().graph().run() == null) return Double.NaN;
        return eager.get().graph().wallUs() / row.graph().wallUs();
    }

    /** The row's or eager's median is not sound by its stop rule (timeout, too few samples, noise over the bound). */
    public boolean noisy(Row row) {
        return row.run().noisy().isPresent() || row(ModelTree.EAGER, row.tokens()).map(e -> e.run() != null && e.run().noisy().isPresent()).orElse(false);
    }
}
