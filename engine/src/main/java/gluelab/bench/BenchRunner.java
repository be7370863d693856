package gluelab.bench;

import gluelab.device.ExpressionVariant;
import gluelab.ops.Skip;
import gluelab.calibrate.Calibration;
import gluelab.check.Checker;
import gluelab.check.Correctness;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.floor.Floor;
import gluelab.ops.MeasureKey;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.Row;
import gluelab.timing.Harness;
import gluelab.timing.Measurement;
import gluelab.timing.Subjects;

import java.util.*;
import java.util.function.Consumer;

/**
 * Runs a plan: for each group, fill inputs once, place them (with every variant prepared on each
 * placement, see {@link Placements}) and the CUDA-graph replay of each variant where the device
 * has graphs, screen them interleaved, attach the floor and (at the
 * plan's check size) correctness. Each row is handed to {@code onRow} as soon as it is measured,
 * so callers can log and save progressively. Groups the device cannot run (a dtype it lacks) are
 * refused before anything runs, with the device's reason.
 */
public final class BenchRunner {
    private final Device device;
    private final Calibration calibration;
    private final Consumer<String> notes;

    /** Where a runner's notes go unless told otherwise. */
    public static final Consumer<String> STDERR_NOTES = note -> System.err.println("note: " + note);

    /** A runner whose notes (fewer buffer placements than asked) go to stderr. */
    public BenchRunner(Device device, Calibration calibration) {
        this(device, calibration, STDERR_NOTES);
    }

    /** A runner that tells {@code notes} what it changed from the plan (fewer buffer placements than asked, for lack of memory). */
    public BenchRunner(Device device, Calibration calibration, Consumer<String> notes) {
        this.device = device;
        this.calibration = calibration;
        this.notes = notes;
    }

    /** Correctness is checked once per op, pass and variant, at the plan's check size. */
    private record CheckKey(String op, Pass pass, Variant variant) {}

    public BenchResult run(BenchPlan plan, Progress progress, Consumer<Row> onRow) {
        plan.checkRuns(device);
        List<BenchPlan.Group> groups = plan.groups();
        Map<CheckKey, Correctness> checks = new LinkedHashMap<>();
        if (plan.checkTokens() > 0) {
            Checker checker = new Checker(device);
            int done = 0, total = groups.size() / plan.tokens().size() * plan.variants().size();
            for (BenchPlan.Group g : groups) {
                if (g.shape().tokens() != plan.tokens().getFirst()) continue;
                var small = g.op().shape(plan.spec(), plan.checkTokens(), plan.dtype());
                for (Variant v : plan.variants()) {
                    if (!runs(v, g)) continue;
                    if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("bench interrupted");
                    progress.update("check", done, total, g.op().name() + " " + g.pass().id() + " " + v.id());
                    checks.put(new CheckKey(g.op().name(), g.pass(), v), checker.check(g.op(), small, g.pass(), v));
                    done++;
                }
            }
        }
        List<Skip> skipped = new ArrayList<>();
        for (BenchPlan.Group g : groups) {
            if (!plan.variants().contains(Variant.REGION)) break;
            ExpressionVariant.skipped(g.op(), g.pass()).filter(s -> !skipped.contains(s)).ifPresent(s -> {
                skipped.add(s);
                notes.accept("skipped " + s);
            });
        }
        List<Row> rows = new ArrayList<>();
        Harness harness = new Harness(device);
        int placements = plan.placements(device);
        int done = 0;
        for (BenchPlan.Group g : groups) {
            if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("bench interrupted");
            progress.update("bench", done, groups.size(), g.op().name() + " " + g.pass().id() + " T=" + g.shape().tokens());
            Floor floor = Floor.of(g.op(), g.shape(), g.pass(), calibration);
            for (Measured m : measureGroup(harness, plan, g, placements)) {
                Row row = new Row(m.key(), plan.spec().name(), floor.bytes(), floor.flops(), floor.idealSeconds() * 1e6, floor.bound(),
                        m.measurement(), checks.get(new CheckKey(g.op().name(), g.pass(), m.key().variant())));
                rows.add(row);
                onRow.accept(row);
            }
            done++;
        }
        progress.update("bench", done, groups.size(), "done");
        return new BenchResult(rows, List.copyOf(checks.values()), skipped, device.facts().name());
    }

    private record Measured(MeasureKey key, Measurement measurement) {}

    /** Variant region runs only on the ops written as expressions; the others give a skip (and a note) instead of a row. */
    private static boolean runs(Variant v, BenchPlan.Group g) {
        return v != Variant.REGION || ExpressionVariant.available(g.op(), g.pass());
    }

    private List<Measured> measureGroup(Harness harness, BenchPlan plan, BenchPlan.Group g, int placements) {
        List<Variant> variants = plan.variants().stream().filter(v -> runs(v, g)).toList();
        if (variants.isEmpty()) return List.of();
        try (Placements placed = Placements.allocate(device, g.op(), g.shape(), g.pass(), variants, placements, 42, notes);
             Subjects<MeasureKey> subjects = new Subjects<>(device)) {
            for (int i = 0; i < variants.size(); i++) {
                MeasureKey key = new MeasureKey(g.op().id(), g.pass(), variants.get(i), Replay.DIRECT, g.shape().tokens(), plan.dtype());
                subjects.add(key, new Harness.Subject(key.toString(), placed.rotating(i), g.argumentBytes() * placed.count(), plan.timing().stop()));
                // Every measurement also gets a CUDA-graph row where the device has graphs, on its own sample budget. It
                // replays one placement: its 20 launches after one flush find their data in L2, which rotating would change.
                MeasureKey gk = key.withReplay(Replay.GRAPH);
                subjects.addGraphTwin(gk, placed.first(i), gk.toString(), g.argumentBytes(), plan.timing().stop());
            }
            return subjects.interleave(harness, plan.timing()).stream().map(t -> new Measured(t.key(), t.measurement())).toList();
        }
    }
}
