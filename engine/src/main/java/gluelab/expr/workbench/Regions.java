package gluelab.expr.workbench;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.expr.Region;
import gluelab.expr.lower.EagerTree;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionCompiler;
import gluelab.ops.Pass;
import gluelab.timing.TimingConfig;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.List;

/**
 * Regions in a notebook cell: check, explain, time, size and compare rewrites, each one call that
 * returns a table. {@code var rx = Regions.on(lab.device(), lab.calibration());}
 */
public final class Regions {
    private final Device device;
    private final Calibration cal;
    private TimingConfig timing = TimingConfig.quick();
    private List<RegionBench.Row> last = List.of();

    private Regions(Device device, Calibration cal) {
        this.device = device;
        this.cal = cal;
    }

    public static Regions on(Device device, Calibration cal) { return new Regions(device, cal); }

    /** Timing for the measurements that follow (default: quick). */
    public Regions timing(TimingConfig t) {
        timing = t;
        return this;
    }

    /** Eager and fused, fwd and bwd, vs fp64 (fused in bf16 within 1 ulp). */
    public Table check(Region r) {
        boolean bf16 = r.outputs().values().stream().anyMatch(e -> e.dtype() != gluelab.tensor.DType.FP32);
        return RegionCheck.table(RegionCheck.check(device, r, bf16 ? 1 : 64, 256, 7));
    }

    /** The backward's gradients vs central finite differences of the forward (in fp64). */
    public Table gradcheck(Region r) {
        Table t = Table.create("gradients vs finite differences");
        StringColumn in = StringColumn.create("input");
        DoubleColumn err = DoubleColumn.create("max rel error");
        for (RegionCheck.GradResult g : RegionCheck.gradients(r, 8, 3)) {
            in.append(g.input());
            err.append(g.maxRelError());
        }
        return t.addColumns(in, err);
    }

    /** The eager tree: one row per kernel with the bytes it moves. */
    public Table eager(Region r) {
        EagerTree tree = EagerTree.of(r);
        Table t = Table.create("eager tree of " + r.name() + ": " + tree.kernelCount() + " kernels");
        StringColumn op = StringColumn.create("kernel"), writes = StringColumn.create("writes");
        LongColumn bytes = LongColumn.create("bytes");
        for (EagerTree.Kernel k : tree.kernels()) {
            op.append(k.label());
            writes.append(k.writes());
            bytes.append(k.cost().bytes());
        }
        return t.addColumns(op, writes, bytes);
    }

    /** Eager and fused, fwd and bwd, timed against the floor. */
    public Table bench(Region... regions) {
        List<RegionBench.Row> rows = new ArrayList<>();
        for (Region r : regions) {
            for (Lowering l : Lowering.values()) {
                rows.add(RegionBench.bench(device, cal, r, Pass.FORWARD, l, timing));
                rows.add(RegionBench.bench(device, cal, r.backward(), Pass.BACKWARD, l, timing));
            }
        }
        last = List.copyOf(rows);
        return RegionBench.table("regions on " + device.id(), rows);
    }

    /** The last {@link #bench}, sizing or rewrites as a chart: % of floor per region and lowering. */
    public org.knowm.xchart.CategoryChart chart() {
        if (last.isEmpty()) throw new IllegalStateException("nothing measured yet: run bench, sizing or rewrites first");
        var c = new org.knowm.xchart.CategoryChartBuilder().width(1200).height(600).title("% of floor on " + device.id() + " (100 = at the floor)")
                .xAxisTitle("region").yAxisTitle("% of floor").build();
        c.getStyler().setXAxisLabelRotation(45);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        java.util.Map<String, java.util.Map<String, Double>> bySeries = new java.util.TreeMap<>();
        List<String> categories = new ArrayList<>();
        for (RegionBench.Row r : last) {
            String cat = r.name() + " " + r.pass();
            if (!categories.contains(cat)) categories.add(cat);
            bySeries.computeIfAbsent(r.lowering(), k -> new java.util.HashMap<>()).put(cat, r.pctOfFloor());
        }
        bySeries.forEach((series, byCat) -> c.addSeries(series, categories, categories.stream().map(k -> byCat.getOrDefault(k, 0.0)).toList()));
        return c;
    }

    /** region(A) + eager B, region(A) + region(B), region(C), fwd and bwd. */
    public Table sizing(Region a, Region b) {
        last = RegionSizing.measure(device, cal, a, b, timing);
        return RegionSizing.table(last);
    }

    /** Each rewrite's before and after, fused, fwd and bwd. */
    public Table rewrites(List<Rewrites.Rewrite> list) {
        List<RegionBench.Row> rows = new ArrayList<>();
        StringColumn which = StringColumn.create("rewrite"), side = StringColumn.create("form");
        for (Rewrites.Rewrite rw : list) {
            for (Region r : List.of(rw.before(), rw.after())) {
                for (Lowering l : Lowering.values()) {
                    rows.add(RegionBench.bench(device, cal, r, Pass.FORWARD, l, timing));
                    which.append(rw.name());
                    side.append(r == rw.before() ? "before" : "after");
                }
            }
        }
        last = List.copyOf(rows);
        Table t = RegionBench.table("rewrites on " + device.id(), rows);
        t.insertColumn(0, side);
        t.insertColumn(0, which);
        return t;
    }

    /** How many regions this device compiled so far (one per distinct signature and config). */
    public int compiles() { return RegionCompiler.of(device).compiles(); }

    /** Compiled regions and configurations an autotuner could sweep for {@code r}. */
    public Table configs(Region r) {
        Table t = Table.create("launch configurations of " + r.name());
        StringColumn id = StringColumn.create("config");
        IntColumn tpr = IntColumn.create("threads per row"), block = IntColumn.create("block");
        for (var c : RegionCompiler.of(device).configs(r)) {
            id.append(c.id());
            tpr.append(c.threadsPerRow());
            block.append(c.blockThreads());
        }
        return t.addColumns(id, tpr, block);
    }
}
