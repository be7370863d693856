package gluelab.expr.workbench;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.expr.Region;
import gluelab.expr.lower.EagerTree;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionCompiler;
import gluelab.ops.Pass;
import gluelab.timing.TimingConfig;
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
        var t = gluelab.table.DataTable.builder("gradients vs finite differences", gluelab.table.Column.text("input", "the input whose gradient is checked"),
                gluelab.table.Column.number("max_rel_error", "largest relative error of the gradient against central finite differences"));
        for (RegionCheck.GradResult g : RegionCheck.gradients(r, 8, 3)) t.row(g.input(), g.maxRelError());
        return gluelab.table.TableFormat.tablesaw(t.build());
    }

    /** The eager tree: one row per kernel with the bytes it moves. */
    public Table eager(Region r) {
        EagerTree tree = EagerTree.of(r);
        var t = gluelab.table.DataTable.builder("eager tree of " + r.name() + ": " + tree.kernelCount() + " kernels",
                gluelab.table.Column.text("kernel", "one eager kernel of the tree"), gluelab.table.Column.text("writes", "what it writes"),
                gluelab.table.Columns.BYTES_MOVED);
        for (EagerTree.Kernel k : tree.kernels()) t.row(k.label(), k.writes(), k.cost().bytes());
        return gluelab.table.TableFormat.tablesaw(t.build());
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
        return chart(device.id() + ", " + device.facts().name(), last);
    }

    /** % of floor per region and lowering on {@code device} (for the title), the 100% line drawn whatever the data. */
    public static org.knowm.xchart.CategoryChart chart(String device, List<RegionBench.Row> rows) {
        java.util.Map<String, List<gluelab.chart.Point>> bySeries = new java.util.TreeMap<>();
        for (RegionBench.Row r : rows) {
            bySeries.computeIfAbsent(r.lowering(), k -> new ArrayList<>()).add(new gluelab.chart.Point(r.name() + " " + r.pass(), r.pctOfFloor(), !r.noisy().isEmpty()));
        }
        var plot = gluelab.chart.Plot.of("Regions: % of floor, 100 = at the floor (" + device + ")", "region", "% of floor", null).noteUnit("%")
                .categories(rows.stream().map(r -> r.name() + " " + r.pass()).distinct().toList());
        bySeries.forEach(plot::series);
        return plot.line(gluelab.chart.Charts.FLOOR_LINE, 100).chart();
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
        var t = gluelab.table.DataTable.builder("launch configurations of " + r.name(), gluelab.table.Column.text("config", "the configuration's id"),
                gluelab.table.Column.count("threads per row", "threads that share one row"), gluelab.table.Column.count("block", "threads per block"));
        for (var c : RegionCompiler.of(device).configs(r)) t.row(c.id(), c.threadsPerRow(), c.blockThreads());
        return gluelab.table.TableFormat.tablesaw(t.build());
    }
}
