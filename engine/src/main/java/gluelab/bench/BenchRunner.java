package gluelab.bench;

import gluelab.calibrate.Calibration;
import gluelab.check.Checker;
import gluelab.check.Correctness;
import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.device.OpBuffers;
import gluelab.device.OpInstance;
import gluelab.floor.Floor;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.Row;
import gluelab.timing.Harness;
import gluelab.timing.Measurement;

import java.util.*;
import java.util.function.Consumer;

/**
 * Runs a plan: for each group, fill inputs once, prepare every variant, screen the variants
 * interleaved, attach the floor and (at the plan's check size) correctness. Each row is handed
 * to {@code onRow} as soon as it is measured, so callers can log and save progressively.
 */
public final class BenchRunner {
    /** Variant suffix of the rows measured as CUDA-graph replays. */
    public static final String GRAPH_SUFFIX = "@graph";
    /** Launches captured per graph; a sample is one replay divided by this. */
    public static final int GRAPH_REPEATS = 20;

    private final Device device;
    private final Calibration calibration;

    public BenchRunner(Device device, Calibration calibration) {
        this.device = device;
        this.calibration = calibration;
    }

    public BenchResult run(BenchPlan plan, Progress progress, Consumer<Row> onRow) {
        plan.checkFits(device);
        List<BenchPlan.Group> groups = plan.groups();
        Map<String, Correctness> checks = new LinkedHashMap<>();
        if (plan.checkTokens() > 0) {
            Checker checker = new Checker(device);
            int done = 0;
            for (BenchPlan.Group g : groups) {
                if (g.shape().tokens() != plan.tokens().getFirst()) continue;
                var small = g.op().shape(plan.spec(), plan.checkTokens(), plan.dtype());
                for (Variant v : plan.variants()) {
                    progress.update("check", done, groups.size() / plan.tokens().size() * plan.variants().size(), g.op().name() + " " + g.pass().id() + " " + v.id());
                    checks.put(g.op().name() + "|" + g.pass().id() + "|" + v.id(), checker.check(g.op(), small, g.pass(), v));
                    done++;
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        Harness harness = new Harness(device);
        int done = 0;
        for (BenchPlan.Group g : groups) {
            if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("bench interrupted");
            progress.update("bench", done, groups.size(), g.op().name() + " " + g.pass().id() + " T=" + g.shape().tokens());
            for (Measurement m : measureGroup(harness, plan, g)) {
                String variant = m.label().substring(m.label().lastIndexOf('/') + 1);
                Floor floor = Floor.of(g.op(), g.shape(), g.pass(), calibration);
                Row row = new Row(g.op().name(), g.pass().id(), variant, g.shape().tokens(), plan.dtype().id(), plan.spec().name(),
                        floor.bytes(), floor.flops(), floor.idealSeconds() * 1e6, floor.bound(), m,
                        checks.get(g.op().name() + "|" + g.pass().id() + "|" + variant));
                rows.add(row);
                onRow.accept(row);
            }
            done++;
        }
        progress.update("bench", done, groups.size(), "done");
        return new BenchResult(rows, List.copyOf(checks.values()));
    }

    private List<Measurement> measureGroup(Harness harness, BenchPlan plan, BenchPlan.Group g) {
        Map<String, Buffer> args = new LinkedHashMap<>();
        List<Launch> launches = new ArrayList<>();
        try {
            OpBuffers.allocate(device, g.op(), g.shape(), g.pass(), 42, args);
            List<Harness.Subject> subjects = new ArrayList<>();
            for (Variant v : plan.variants()) {
                OpInstance inst = new OpInstance(g.op(), g.shape(), g.pass(), v);
                Launch l = device.prepare(inst, args);
                launches.add(l);
                String label = g.op().name() + "/" + g.pass().id() + "/" + v.id();
                subjects.add(new Harness.Subject(label, l, g.argumentBytes()));
                // Every measurement also gets a CUDA-graph row where the device has graphs.
                var graph = device.graph(l, GRAPH_REPEATS);
                if (graph.isPresent()) {
                    launches.add(graph.get());
                    subjects.add(new Harness.Subject(label + GRAPH_SUFFIX, graph.get(), g.argumentBytes()));
                }
            }
            return harness.interleave(subjects, plan.timing());
        } finally {
            java.util.Collections.reverse(launches);
            launches.forEach(Launch::close);
            args.values().forEach(Buffer::close);
        }
    }
}
