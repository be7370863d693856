package gluelab.tune;

import gluelab.device.Device;
import gluelab.device.OpInstance;
import gluelab.model.ModelSpec;
import gluelab.ops.GlueOp;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.tensor.DType;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Tunes a set of ops x passes x token counts (the fused variant) and renders the accounting. */
public final class Tuning {
    private Tuning() {}

    /** Every fused instance of the plan that has more than one config, tuned (or taken from the cache). */
    /** The plan's tune decision from bench's --tune and --no-tune: tune unless --no-tune (both: an error). */
    public static boolean benchTunes(boolean tune, boolean noTune) {
        if (tune && noTune) throw new IllegalArgumentException("--tune and --no-tune contradict each other: give one");
        return !noTune;
    }

    /**
     * Whether a plan that tunes tunes on this device: where it has a tunable space that tunes
     * unasked (a GPU's, not the CPU's), or everywhere with {@code everyDevice} (bench --tune).
     */
    public static boolean tunesBeforeBench(Device device, boolean everyDevice) {
        return device.tunable().map(t -> everyDevice || t.tunesUnasked()).orElse(false);
    }

    public static List<TuneResult> run(Device device, ModelSpec spec, List<GlueOp> ops, List<Pass> passes, List<Long> tokens, DType dtype,
                                       Tuner.Options options, Progress progress) {
        return run(device, spec, ops, passes, tokens, dtype, List.of(Variant.FUSED), options, progress);
    }

    /**
     * The same for each variant with a tunable space (fused: the hand kernels; region: the generated
     * regions). Per variant, every config of the tunings not cached is compiled in one batch first
     * (the parallel path), then each is tuned.
     */
    public static List<TuneResult> run(Device device, ModelSpec spec, List<GlueOp> ops, List<Pass> passes, List<Long> tokens, DType dtype,
                                       List<Variant> variants, Tuner.Options options, Progress progress) {
        List<TuneResult> out = new ArrayList<>();
        for (Variant v : variants) {
            Tuner tuner = Tuner.forVariant(device, v, options).orElse(null);
            if (tuner == null) continue;
            try {
                out.addAll(run(tuner, instances(tuner, spec, ops, passes, tokens, dtype, v), options, progress));
            } finally {
                // Idle workers hold memory (a JVM and a compiler each); a later tuning starts them again.
                tuner.stopCompilers();
            }
        }
        return out;
    }

    private static List<OpInstance> instances(Tuner tuner, ModelSpec spec, List<GlueOp> ops, List<Pass> passes, List<Long> tokens, DType dtype,
                                              Variant v) {
        List<OpInstance> instances = new ArrayList<>();
        for (long t : tokens) {
            for (GlueOp op : ops) {
                for (Pass p : passes) {
                    if (!op.supports(p)) continue;
                    OpInstance in = new OpInstance(op, op.shape(spec, t, dtype), p, v);
                    if (tuner.tunable(in)) instances.add(in);
                }
            }
        }
        return instances;
    }

    private static List<TuneResult> run(Tuner tuner, List<OpInstance> instances, Tuner.Options options, Progress progress) {
        // A pick of this machine's comes first; where there is none, a shipped pick at the very shape stands in for a tune.
        Map<OpInstance, TuneResult> shipped = new java.util.HashMap<>();
        for (OpInstance in : instances) {
            if (options.force() || tuner.cached(in).isPresent()) continue;
            tuner.shippedAtShape(in).ifPresent(r -> shipped.put(in, r));
        }
        Map<OpInstance, Tuner.Compiled> compiled = Map.of();
        if (!options.serial()) {
            List<OpInstance> todo = instances.stream().filter(in -> !shipped.containsKey(in) && (options.force() || tuner.cached(in).isEmpty())).toList();
            if (!todo.isEmpty()) compiled = tuner.compileTogether(todo, progress);
        }
        List<TuneResult> out = new ArrayList<>();
        for (OpInstance in : instances) {
            if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("tuning interrupted");
            out.add(shipped.containsKey(in) ? shipped.get(in) : tuner.tune(in, progress, compiled.get(in)));
        }
        return out;
    }

    /**
     * One line per tuning: configs, compile wall and sum, benchmark seconds, pick and runner-up; a
     * batch's wall is shown on each tuning it served (marked *) and counted once in the total.
     */
    public static String table(List<TuneResult> results) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-26s %7s %8s %9s %8s %8s %9s  %-34s %9s  %s%n",
                "op/pass T", "configs", "skipped", "compile s", "sum s", "bench s", "pick us", "pick", "2nd us", "source"));
        double wall = 0, sum = 0, bench = 0;
        int configs = 0;
        java.util.Set<String> how = new java.util.LinkedHashSet<>();
        for (TuneResult r : results) {
            long skipped = r.results().stream().filter(c -> !c.valid()).count();
            // A generated region's tuning is told apart by its kernel: variant region names every region kernel "region".
            String label = r.kernel().equals("region") ? r.label() + " region" : r.label();
            String wallText = String.format(Locale.ROOT, "%.2f%s", r.compileWallSeconds(), r.compileShared() > 1 ? "*" : "");
            b.append(String.format(Locale.ROOT, "%-26s %7d %8d %9s %8.2f %8.2f %9.1f  %-34s %9.1f  %s%n", label, r.configs(), skipped,
                    wallText, r.compileSumSeconds(), r.benchmarkSeconds(), r.pickUs(), r.pick(), r.runnerUpUs(),
                    r.source()));
            if (!r.fromCache()) {
                wall += r.compileWallShare();
                if (!r.compileHow().isBlank()) how.add(r.compileHow());
                sum += r.compileSumSeconds();
                bench += r.benchmarkSeconds();
                configs += r.configs();
            }
        }
        b.append(String.format(Locale.ROOT, "tuned now: %d configs, compile wall %.2f s, per-config compile sum %.2f s, benchmark %.2f s%n",
                configs, wall, sum, bench));
        for (String h : how) b.append("compiled: ").append(h).append('\n');
        results.stream().filter(r -> TuneResult.SHIPPED.equals(r.mode())).map(TuneResult::compileHow).distinct()
                .forEach(h -> b.append("shipped: ").append(h).append("; their times are the reference GPU's\n"));
        if (results.stream().anyMatch(r -> !r.fromCache() && r.compileShared() > 1)) {
            b.append("* the wall of a compile batch shared by several tunings\n");
        }
        return b.toString();
    }
}
