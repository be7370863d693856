package gluelab.expr.workbench;

import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import gluelab.bench.KernelBenchmark;
import gluelab.calibrate.Calibration;
import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.expr.Expr;
import gluelab.expr.Region;
import gluelab.expr.lower.RegionCost;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionCompiler;
import gluelab.expr.run.RegionLaunches;
import gluelab.expr.run.Sequence;
import gluelab.floor.Floor;
import gluelab.ops.Pass;
import gluelab.rank.Candidate;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Regions timed against their floor like catalogue ops. This is the one class that touches the
 * timing side ({@link KernelBenchmark}, {@link TimingConfig}, {@link Floor}); everything else in
 * the expression packages is independent of how timing is planned.
 */
public final class RegionBench {
    /** One timed launch: a region (or a chain of them) with its floor and what it compiled. */
    public record Row(String name, String pass, String lowering, int kernels, long floorBytes, long movedBytes, long flops,
                      double idealUs, double measuredUs, double pctOfFloor, int signatures, String noisy) {
        public Row {
            noisy = noisy == null ? "" : noisy;
        }

        /** As a ranking candidate: run {@code count} times per layer of {@code layerUs}. */
        public Candidate candidate(long tokens, int count, double layerUs) {
            return new Candidate(name, pass, lowering, tokens, count, measuredUs, idealUs, layerUs);
        }
    }

    /** A chain of regions run back to back (tensors shared by name) and how to label it. */
    public record Chain(String name, String pass, String lowering, List<Region> regions, List<Lowering> lowerings, Region floorOf, int signatures,
                        LaunchConfig config) {
        public Chain(String name, String pass, String lowering, List<Region> regions, List<Lowering> lowerings, Region floorOf, int signatures) {
            this(name, pass, lowering, regions, lowerings, floorOf, signatures, null);
        }
    }

    private RegionBench() {}

    public static Row bench(Device d, Calibration cal, Region r, Pass pass, Lowering l, TimingConfig timing) {
        return bench(d, cal, r, pass, l, null, timing);
    }

    /** The fused region with a given launch configuration (null: the device's default). */
    public static Row bench(Device d, Calibration cal, Region r, Pass pass, Lowering l, LaunchConfig config, TimingConfig timing) {
        return bench(d, cal, r, pass, l, config, timing, null);
    }

    /** The same over buffers kept in {@code pool} (by tensor name; missing ones are allocated, filled and added; the caller closes them). */
    public static Row bench(Device d, Calibration cal, Region r, Pass pass, Lowering l, LaunchConfig config, TimingConfig timing, Map<String, Buffer> pool) {
        return bench(d, cal, new Chain(r.name(), pass.id(), l.id() + (config == null ? "" : " " + config.id()), List.of(r), List.of(l), r, signatures(r, l), config), timing, pool);
    }

    /** Every candidate configuration of the fused region timed quickly; the fastest (what an autotuner would pick). */
    public static LaunchConfig fastestConfig(Device d, Calibration cal, Region r, Pass pass) {
        return fastestConfig(d, cal, r, pass, RegionCompiler.of(d).configs(r), TimingConfig.quick());
    }

    public static LaunchConfig fastestConfig(Device d, Calibration cal, Region r, Pass pass, List<LaunchConfig> configs, TimingConfig timing) {
        return fastestConfig(d, cal, r, pass, configs, timing, null);
    }

    /** The sweep over buffers kept in {@code pool} (see {@link #bench(Device, Calibration, Region, Pass, Lowering, LaunchConfig, TimingConfig, Map)}). */
    public static LaunchConfig fastestConfig(Device d, Calibration cal, Region r, Pass pass, List<LaunchConfig> configs, TimingConfig timing, Map<String, Buffer> pool) {
        if (configs.isEmpty()) throw new IllegalArgumentException("region '" + r.name() + "': no launch configurations to choose from");
        RegionCompiler.of(d).compileAll(r, configs);
        LaunchConfig best = null;
        double bestUs = Double.POSITIVE_INFINITY;
        for (LaunchConfig c : configs) {
            double us = bench(d, cal, r, pass, Lowering.FUSED, c, timing, pool).measuredUs();
            if (us < bestUs) {
                bestUs = us;
                best = c;
            }
        }
        return best;
    }

    /** Distinct signatures a lowering compiles: one fused kernel, or one per distinct eager primitive. */
    public static int signatures(Region r, Lowering l) {
        if (l == Lowering.FUSED) return 1;
        return (int) gluelab.expr.lower.EagerTree.of(r).kernels().stream().map(k -> k.region().signature().key()).distinct().count();
    }

    public static Row bench(Device d, Calibration cal, Chain c, TimingConfig timing) {
        return bench(d, cal, c, timing, null);
    }

    /** A chain timed over buffers kept in {@code pool} (null: its own, closed after). */
    public static Row bench(Device d, Calibration cal, Chain c, TimingConfig timing, Map<String, Buffer> pool) {
        Map<String, Buffer> buffers = pool != null ? pool : new LinkedHashMap<>();
        List<Launch> steps = new ArrayList<>();
        try {
            long seed = 1;
            for (Region r : c.regions()) {
                for (TensorSpec s : RegionLaunches.tensors(r)) {
                    if (buffers.containsKey(s.name())) continue;
                    Buffer b = d.allocate(s);
                    buffers.put(s.name(), b);
                    try (Tensor t = Tensor.allocate(s)) {
                        Fill.uniform(t, seed++, -1, 1);
                        d.upload(t, b);
                    }
                }
            }
            int kernels = 0;
            long moved = 0;
            for (int i = 0; i < c.regions().size(); i++) {
                Region r = c.regions().get(i);
                Lowering l = c.lowerings().get(i);
                Launch launch = RegionLaunches.prepare(d, r, l, l == Lowering.FUSED ? c.config() : null, buffers, Map.of());
                steps.add(launch);
                kernels += launch.kernels();
                moved += l == Lowering.FUSED ? RegionCost.of(r).bytes() : gluelab.expr.lower.EagerTree.of(r).cost().bytes();
            }
            RegionCost floorCost = RegionCost.of(c.floorOf());
            Floor floor = new Floor(c.name(), Pass.parse(c.pass()), tokens(c.floorOf()), floorCost.bytes(), floorCost.flops(), cal.bandwidth(), cal.peakFlops());
            try (Launch all = new Sequence(List.copyOf(steps), List.of())) {
                steps.clear();
                KernelBenchmark.Result res = KernelBenchmark.run(d, cal, all, c.name() + "/" + c.pass() + "/" + c.lowering(), floorCost.bytes(), timing);
                double measured = res.measuredUs(), ideal = floor.idealSeconds() * 1e6;
                return new Row(c.name(), c.pass(), c.lowering(), kernels, floorCost.bytes(), moved, floorCost.flops(), ideal, measured,
                        100 * ideal / measured, c.signatures(), res.measurement().noisy().orElse(""));
            }
        } finally {
            steps.forEach(Launch::close);
            if (pool == null) buffers.values().forEach(Buffer::close);
        }
    }

    /** The size of the region's outermost row dim (tokens, for glue). */
    static long tokens(Region r) {
        for (Expr in : r.inputs()) if (!in.shape().isScalar()) return in.shape().dims().getFirst().size();
        return 0;
    }

    private static final Column REGION = Column.text("region", "the region, or a chain of regions"),
            LOWERING = Column.text("lowering", "how it ran: eager (one kernel per node) or fused"),
            SIGNATURES = Column.count("signatures", "distinct call signatures the choice compiles");

    /** One line per timed launch: its floor, what it moved and measured, and why it is noisy. */
    public static tech.tablesaw.api.Table table(String title, List<Row> rows) {
        var t = DataTable.builder(title, REGION, Columns.PASS, LOWERING, Columns.KERNELS, Columns.FLOOR_BYTES, Columns.BYTES_MOVED, Columns.IDEAL,
                Columns.MEASURED, Columns.PCT_OF_FLOOR, SIGNATURES, Columns.NOISY);
        for (Row r : rows) {
            t.row(r.name(), r.pass(), r.lowering(), r.kernels(), r.floorBytes(), r.movedBytes(), r.idealUs(), r.measuredUs(), r.pctOfFloor(),
                    r.signatures(), r.noisy());
        }
        return TableFormat.tablesaw(t.build());
    }
}
