package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.bench.BenchPlan;
import gluelab.calibrate.Calibration;
import gluelab.floor.Floor;
import gluelab.ops.Pass;
import gluelab.progress.Progress;
import gluelab.ops.MeasureKey;
import gluelab.record.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The catalogue ops written in torch, timed by the harness at the plan's shapes, dtypes and bytes:
 * rows of the same record as gluelab's (same floor, same stop rule), one per torch variant.
 */
public final class TorchBench {
    private final TorchBridge bridge;
    private final Calibration calibration;
    private final long flushBytes;

    /** {@code flushBytes}: the cache flush gluelab uses on this device (twice the last-level cache). */
    public TorchBench(TorchBridge bridge, Calibration calibration, long flushBytes) {
        this.bridge = bridge;
        this.calibration = calibration;
        this.flushBytes = flushBytes;
    }

    public TorchResult run(BenchPlan plan, List<TorchVariant> variants, String compileMode, Progress progress) {
        List<Row> rows = new ArrayList<>();
        List<CompileReport> compiles = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        List<BenchPlan.Group> groups = plan.groups();
        List<ObjectNode> requests = groups.stream().map(g -> request(g, plan, variants, compileMode)).toList();
        Precompile precompile = precompile(requests, variants, progress);
        for (int i = 0; i < groups.size(); i++) {
            BenchPlan.Group g = groups.get(i);
            String subject = subject(g);
            progress.update("torch", i, groups.size(), subject);
            JsonNode reply;
            try {
                reply = bridge.call(requests.get(i), "torch " + subject);
            } catch (TorchException e) {
                // One op failing in torch (an exception, CUDA OOM) leaves the harness usable: its rows are skipped with the reason and the rest are timed.
                if (e.kind() != TorchException.Kind.FAILED && e.kind() != TorchException.Kind.OOM) throw e;
                for (TorchVariant v : variants) skipped.add(new Skipped(subject, v.id(), e.getMessage()));
                continue;
            }
            Floor floor = Floor.of(g.op(), g.shape(), g.pass(), calibration);
            for (JsonNode r : reply.path("rows")) {
                MeasureKey key = TorchVariant.parse(r.path("variant").asText()).key(g.op().id(), g.pass(), g.shape().tokens(), plan.dtype());
                rows.add(new Row(key, plan.spec().name(), floor.bytes(), floor.flops(), floor.idealSeconds() * 1e6, floor.bound(),
                        Replies.measurement(key.toString(), plan.timing(), r), null));
            }
            for (JsonNode s : reply.path("skipped")) skipped.add(new Skipped(subject, s.path("variant").asText(), s.path("reason").asText()));
            if (reply.hasNonNull("compile")) compiles.add(Replies.compile(subject, reply.get("compile")));
        }
        progress.update("torch", groups.size(), groups.size(), "done");
        return new TorchResult(bridge.versions(), rows, compiles, skipped, precompile);
    }

    /**
     * Compiles every group's graphs before any timing, in parallel Python processes (16 groups compiled
     * one by one took minutes on the H200 host), into the Inductor cache the timed requests then load from.
     */
    private Precompile precompile(List<ObjectNode> requests, List<TorchVariant> variants, Progress progress) {
        boolean compiles = variants.stream().anyMatch(v -> v != TorchVariant.EAGER);
        if (!compiles || !bridge.versions().compile() || requests.isEmpty()) return Precompile.NONE;
        ObjectNode req = TorchBridge.request("prepare");
        requests.forEach(req.putArray("jobs")::add);
        JsonNode reply = bridge.call(req, "torch compile", progress);
        return Replies.precompile(reply, TorchBridge.inductorCache().toString());
    }

    private static String subject(BenchPlan.Group g) { return g.op().name() + "/" + g.pass().id() + "@" + g.shape().tokens(); }

    private ObjectNode request(BenchPlan.Group g, BenchPlan plan, List<TorchVariant> variants, String compileMode) {
        ObjectNode req = TorchBridge.request("op").put("name", g.op().name()).put("device", bridge.device()).put("pass", g.pass().id())
                .put("compileMode", compileMode).put("flushBytes", flushBytes);
        ObjectNode params = req.putObject("params");
        g.shape().dims().forEach(params::put);
        for (Map.Entry<String, Object> e : g.shape().params().entrySet()) {
            if (e.getValue() instanceof Number n) params.put(e.getKey(), n.doubleValue());
            else params.put(e.getKey(), String.valueOf(e.getValue()));
        }
        req.set("inputs", Replies.inputs(g.op().inputs(g.shape(), Pass.FORWARD)));
        req.set("timing", Replies.timing(plan.timing()));
        var names = req.putArray("variants");
        variants.forEach(v -> names.add(v.id()));
        return req;
    }
}
