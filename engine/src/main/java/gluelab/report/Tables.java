package gluelab.report;

import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import gluelab.ops.OpId;
import gluelab.check.Correctness;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.record.Row;
import gluelab.units.Numbers;
import tech.tablesaw.api.*;

import java.util.*;

/** Views of measured rows, built on the column vocabulary ({@link Columns}): the results table, eager-vs-fused baselines, correctness. */
public final class Tables {
    private Tables() {}

    /**
     * Every row with its summary; {@code noise_pct} is the median's noise the stop rule judged,
     * and {@code noisy} says why a row is not to be trusted as it stands (empty when sound).
     */
    public static Table results(List<Row> rows) { return TableFormat.tablesaw(resultsData(rows)); }

    public static DataTable resultsData(List<Row> rows) {
        var t = DataTable.builder("measurements", Columns.OP, Columns.PASS, Columns.VARIANT, Columns.REPLAY, Columns.TOKENS, Columns.MEDIAN, Columns.MIN,
                Columns.IDEAL, Columns.PCT_OF_FLOOR, Columns.GB_PER_S, Columns.NOISE_PCT, Columns.REL_STDEV_PCT, Columns.SAMPLES, Columns.KERNELS,
                Columns.PEAK_MEM, Columns.STOP, Columns.NOISY);
        for (Row r : rows) {
            var m = r.measurement();
            t.row(r.op().name(), r.pass().id(), r.variant().id(), r.replay().id(), r.tokens(), r.measuredUs(), m.summary().min() * 1e6, r.idealUs(),
                    r.percentOfFloor(), r.achievedGBs(), 100 * m.noise(), 100 * m.summary().relStdev(), m.summary().count(), m.kernels(),
                    m.peakBytes(), m.stopReason().name().toLowerCase(Locale.ROOT), m.noisy().orElse(""));
        }
        return t.build();
    }

    /** Rows whose measurement is not to be trusted as it stands, with why: "rmsnorm fwd eager T=2048 bf16: timeout". */
    public static List<String> noisy(List<Row> rows) {
        List<String> out = new ArrayList<>();
        for (Row r : rows) r.measurement().noisy().ifPresent(why -> out.add(r.key() + ": " + why));
        return out;
    }

    private static final Column EAGER = Column.time("eager", "the eager variant's median, direct launches"),
            FUSED = Column.time("fused", "the fused kernel's median, direct launches"),
            EAGER_PCT = Column.percent("eager_pct_floor", "the eager variant's pct_of_floor"),
            FUSED_PCT = Column.percent("fused_pct_floor", "the fused kernel's pct_of_floor"),
            EAGER_GRAPH = Column.time("eager_graph", "the eager variant's median per launch, replayed as a graph"),
            FUSED_GRAPH = Column.time("fused_graph", "the fused kernel's median per launch, replayed as a graph");

    /** One line per (op, pass, tokens): eager and fused side by side with the speedup, and graph replays where measured. */
    public static Table baselines(List<Row> rows) {
        record Slot(Variant variant, Replay replay) {}
        record Group(OpId op, Pass pass, long tokens) {}
        Map<Group, Map<Slot, Row>> groups = new LinkedHashMap<>();
        for (Row r : rows) groups.computeIfAbsent(new Group(r.op(), r.pass(), r.tokens()), k -> new HashMap<>()).put(new Slot(r.variant(), r.replay()), r);
        var t = DataTable.builder("baselines: eager vs fused", Columns.OP, Columns.PASS, Columns.TOKENS, Columns.IDEAL, EAGER, FUSED, Columns.SPEEDUP,
                EAGER_PCT, FUSED_PCT, EAGER_GRAPH, FUSED_GRAPH, Columns.NOISY);
        for (var e : groups.entrySet()) {
            Map<Slot, Row> slots = e.getValue();
            Row eg = slots.get(new Slot(Variant.EAGER, Replay.DIRECT)), fu = slots.get(new Slot(Variant.FUSED, Replay.DIRECT));
            Row egg = slots.get(new Slot(Variant.EAGER, Replay.GRAPH)), fug = slots.get(new Slot(Variant.FUSED, Replay.GRAPH));
            Row any = slots.values().iterator().next();
            List<String> why = new ArrayList<>();
            for (Row r : slots.values()) r.measurement().noisy().ifPresent(w -> why.add(r.key().series() + ": " + w));
            t.row(e.getKey().op().name(), e.getKey().pass().id(), e.getKey().tokens(), any.idealUs(), us(eg), us(fu),
                    eg == null || fu == null ? null : eg.measuredUs() / fu.measuredUs(),
                    eg == null ? null : eg.percentOfFloor(), fu == null ? null : fu.percentOfFloor(), us(egg), us(fug),
                    String.join("; ", why.stream().sorted().toList()));
        }
        return TableFormat.tablesaw(t.build().withoutEmpty(EAGER_GRAPH, FUSED_GRAPH, Columns.NOISY));
    }

    private static Double us(Row r) { return r == null ? null : r.measuredUs(); }

    /** One line per compared tensor, the tolerance ({@code rel_l2_limit}) beside its verdict. */
    public static Table correctness(List<Correctness> checks) {
        var t = DataTable.builder("correctness vs fp64 and eager", Columns.OP, Columns.PASS, Columns.VARIANT, Columns.TENSOR, Columns.REL_L2_VS_FP64,
                Columns.REL_L2_LIMIT, Columns.MAX_ULP_VS_FP64, Columns.REL_L2_VS_EAGER, Columns.VERDICT);
        for (Correctness c : checks) {
            for (int i = 0; i < c.vsReference().size(); i++) {
                var e = c.vsReference().get(i);
                t.row(c.op(), c.pass().id(), c.variant().id(), e.tensor(), e.relL2(), c.tolerance(), e.maxUlp(),
                        c.vsEager().size() > i ? c.vsEager().get(i).relL2() : null, c.passed() ? "ok" : "FAIL");
            }
        }
        return TableFormat.tablesaw(t.build());
    }

    static double round(double v, int places) { return Numbers.places(v, places); }
}
