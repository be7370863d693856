package gluelab.sweep;

import gluelab.bench.BenchPlan;
import gluelab.bench.BenchResult;
import gluelab.bench.BenchRunner;
import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.Environment;
import gluelab.record.ExperimentRecord;
import gluelab.tensor.DType;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place a sweep touches the bench: a shard becomes a one-op, one-token-count bench plan,
 * and its rows become an ordinary experiment record (kind "shard") with the shard's identity in
 * its parameters.
 */
public final class ShardBench {
    public static final String KIND = "shard";
    /** Parameter keys a shard record carries besides the bench's own. */
    public static final String SWEEP = "sweep", SHARD = "shard", SHARD_INDEX = "shardIndex", PROCESS = "process";

    private ShardBench() {}

    public static BenchPlan benchPlan(SweepPlan plan, Shard s) {
        return new BenchPlan(plan.model(s.model()), List.of(Catalogue.get(s.op())), List.of(s.tokens()),
                plan.variants().stream().map(Variant::parse).toList(), plan.passes().stream().map(Pass::parse).toList(),
                DType.parse(plan.dtype()), plan.timing(), plan.checkTokens());
    }

    public static ExperimentRecord run(String sweepId, SweepPlan plan, Shard s, Device device, Calibration cal, Progress progress) {
        BenchPlan bench = benchPlan(plan, s);
        Instant started = Instant.now();
        BenchResult result = new BenchRunner(device, cal).run(bench, progress, row -> {});
        Map<String, String> params = new LinkedHashMap<>(bench.parameters(device));
        params.put(SWEEP, sweepId);
        params.put(SHARD, s.name());
        params.put(SHARD_INDEX, Integer.toString(s.index()));
        params.put(PROCESS, Integer.toString(s.process()));
        Map<String, String> telemetry = new LinkedHashMap<>();
        device.telemetry().forEach((k, v) -> telemetry.put("after." + k, v));
        return new ExperimentRecord(ExperimentRecord.FORMAT, s.name(), KIND, bench.spec(), params, telemetry,
                Environment.capture(device.facts(), cal, started), result.rows(), 0.01, Instant.now().toString());
    }
}
