package gluelab.sweep;

import gluelab.bench.Tokens;
import gluelab.model.ModelSpec;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * A sweep: models x ops x token counts x confirming processes, each op with the listed passes and
 * variants. Resolved and self-contained (model specs included), so a worker on another node needs
 * nothing but this. It splits into {@link #shards()} in a fixed order; an op with none of the passes
 * has no shards.
 */
public record SweepPlan(List<ModelSpec> models, List<String> ops, List<Long> tokens, List<String> passes,
                        List<String> variants, String dtype, TimingConfig timing, long checkTokens, int processes) {
    public SweepPlan {
        models = List.copyOf(models);
        ops = List.copyOf(ops);
        tokens = List.copyOf(tokens);
        passes = List.copyOf(passes);
        variants = List.copyOf(variants);
        if (models.isEmpty()) throw new IllegalArgumentException("no models to sweep");
        if (ops.isEmpty()) throw new IllegalArgumentException("no ops to sweep");
        if (tokens.isEmpty()) throw new IllegalArgumentException("no token counts to sweep");
        if (passes.isEmpty()) throw new IllegalArgumentException("no passes to sweep");
        if (variants.isEmpty()) throw new IllegalArgumentException("no variants to sweep");
        ops.forEach(Catalogue::parse);
        passes.forEach(Pass::parse);
        for (String v : variants) {
            if (!Variant.parse(v).onDevices()) {
                throw new IllegalArgumentException("variant " + v + " is not run on a device; a sweep runs " + Variant.ON_DEVICES.stream().map(Variant::id).toList());
            }
        }
        List<String> passList = passes;
        if (ops.stream().noneMatch(op -> measurable(op, passList))) {
            throw new IllegalArgumentException("nothing to measure: no op among " + ops + " has the passes " + passes);
        }
        tokens.forEach(t -> Tokens.check(t, Long.toString(t)));
        if (!DType.parse(dtype).isFloating()) throw new IllegalArgumentException("activation dtype must be floating, got " + dtype);
        if (timing == null) throw new IllegalArgumentException("no timing given");
        if (checkTokens < 0) throw new IllegalArgumentException("check tokens must be >= 0, got " + checkTokens);
        if (processes < 1) throw new IllegalArgumentException("processes must be >= 1, got " + processes);
        var names = new HashSet<String>();
        for (ModelSpec m : models) if (!names.add(m.name())) throw new IllegalArgumentException("model " + m.name() + " is listed twice");
    }

    /** Every shard, in plan order: model, then token count, then op, then process. */
    public List<Shard> shards() {
        List<Shard> out = new ArrayList<>();
        for (ModelSpec m : models) {
            for (long t : tokens) {
                for (String op : ops) {
                    if (!measurable(op, passes)) continue;
                    for (int p = 1; p <= processes; p++) out.add(new Shard(out.size(), m.name(), op, t, p));
                }
            }
        }
        return out;
    }

    /** An op with none of the plan's passes has no shards (as a bench skips passes an op lacks). */
    private static boolean measurable(String op, List<String> passes) {
        return passes.stream().anyMatch(p -> Catalogue.parse(op).supports(Pass.parse(p)));
    }

    public ModelSpec model(String name) {
        return models.stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("model " + name + " is not in this sweep's plan"));
    }

    public Shard shard(int index) {
        List<Shard> all = shards();
        if (index < 0 || index >= all.size()) {
            throw new IllegalArgumentException("shard index " + index + " is out of range: this sweep has shards 0-" + (all.size() - 1));
        }
        return all.get(index);
    }
}
