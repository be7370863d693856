package gluelab.sweep;

import gluelab.bench.BenchPlan;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place a sweep touches the bench: a shard becomes a one-op, one-token-count bench plan,
 * and its run becomes an ordinary experiment record (kind shard) with the shard's identity in
 * its parameters.
 */
public final class ShardBench {
    /** Parameter keys a shard record carries besides the bench's own. */
    public static final String SWEEP = "sweep", SHARD = "shard", SHARD_INDEX = "shardIndex", PROCESS = "process";

    private ShardBench() {}

    public static BenchPlan benchPlan(SweepPlan plan, Shard s) {
        return new BenchPlan(plan.model(s.model()), List.of(Catalogue.parse(s.op())), List.of(s.tokens()),
                plan.variants().stream().map(Variant::parse).toList(), plan.passes().stream().map(Pass::parse).toList(),
                DType.parse(plan.dtype()), plan.timing(), plan.checkTokens());
    }

    /** The shard's identity, added to the bench plan's parameters in its record. */
    public static Map<String, String> parameters(String sweepId, Shard s) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put(SWEEP, sweepId);
        params.put(SHARD, s.name());
        params.put(SHARD_INDEX, Integer.toString(s.index()));
        params.put(PROCESS, Integer.toString(s.process()));
        return params;
    }
}
