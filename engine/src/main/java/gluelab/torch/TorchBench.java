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
        int done = 0;
        for (BenchPlan.Group g : groups) {
            String subject = g.op().name() + "/" + g.pass().id() + "@" + g.shape().tokens();
            progress.update("torch", done++, groups.size(), subject);
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
            JsonNode reply = bridge.call(req, "torch " + subject);
            Floor floor = Floor.of(g.op(), g.shape(), g.pass(), calibration);
            for (JsonNode r : reply.path("rows")) {
                MeasureKey key = TorchVariant.parse(r.path("variant").asText()).key(g.op().name(), g.pass(), g.shape().tokens(), plan.dtype());
                rows.add(new Row(key, plan.spec().name(), floor.bytes(), floor.flops(), floor.idealSeconds() * 1e6, floor.bound(),
                        Replies.measurement(key.toString(), plan.timing(), r), null));
            }
            for (JsonNode s : reply.path("skipped")) skipped.add(new Skipped(subject, s.path("variant").asText(), s.path("reason").asText()));
            if (reply.hasNonNull("compile")) compiles.add(Replies.compile(subject, reply.get("compile")));
        }
        progress.update("torch", done, groups.size(), "done");
        return new TorchResult(bridge.versions(), rows, compiles, skipped);
    }
}
