package gluelab.report;

import gluelab.units.TimeColumn;
import gluelab.ops.OpId;
import gluelab.check.Correctness;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.record.Row;
import gluelab.units.Numbers;
import tech.tablesaw.api.*;

import java.util.*;

/** Tablesaw views of measured rows: the results table, eager-vs-fused baselines, correctness. */
public final class Tables {
    private Tables() {}

    /**
     * Every row with its summary; {@code noise_pct} is the median's noise the stop rule judged,
     * and {@code noisy} says why a row is not to be trusted as it stands (empty when sound).
     */
    public static Table results(List<Row> rows) {
        Table t = Table.create("measurements");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass"), variant = StringColumn.create("variant"),
                replay = StringColumn.create("replay");
        IntColumn tokens = IntColumn.create("tokens"), kernels = IntColumn.create("kernels"), n = IntColumn.create("samples");
        TimeColumn median = new TimeColumn("median"), min = new TimeColumn("min"), ideal = new TimeColumn("ideal");
        DoubleColumn pct = DoubleColumn.create("pct_of_floor"), gbs = DoubleColumn.create("GB_per_s"), noise = DoubleColumn.create("noise_pct"),
                spread = DoubleColumn.create("rel_stdev_pct"), peak = DoubleColumn.create("peak_MiB");
        StringColumn stop = StringColumn.create("stop"), noisy = StringColumn.create("noisy");
        for (Row r : rows) {
            op.append(r.op().name());
            pass.append(r.pass().id());
            variant.append(r.variant().id());
            replay.append(r.replay().id());
            tokens.append((int) r.tokens());
            median.append(r.measuredUs());
            min.append(r.measurement().summary().min() * 1e6);
            ideal.append(r.idealUs());
            pct.append(round(r.percentOfFloor(), 1));
            gbs.append(round(r.achievedGBs(), 1));
            noise.append(Numbers.significant(100 * r.measurement().noise(), 2));
            spread.append(Numbers.significant(100 * r.measurement().summary().relStdev(), 2));
            n.append(r.measurement().summary().count());
            kernels.append(r.measurement().kernels());
            peak.append(round(r.measurement().peakBytes() / 1048576.0, 1));
            stop.append(r.measurement().stopReason().name().toLowerCase(Locale.ROOT));
            noisy.append(r.measurement().noisy().orElse(""));
        }
        t.addColumns(op, pass, variant, replay, tokens, median.column(), min.column(), ideal.column(), pct, gbs, noise, spread, n, kernels, peak, stop, noisy);
        return t;
    }

    /** Rows whose measurement is not to be trusted as it stands, with why: "rmsnorm fwd eager T=2048 bf16: timeout". */
    public static List<String> noisy(List<Row> rows) {
        List<String> out = new ArrayList<>();
        for (Row r : rows) r.measurement().noisy().ifPresent(why -> out.add(r.key() + ": " + why));
        return out;
    }

    /** One line per (op, pass, tokens): eager and fused side by side with the speedup, and graph replays where measured. */
    public static Table baselines(List<Row> rows) {
        Table t = Table.create("baselines: eager vs fused");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass"), noisy = StringColumn.create("noisy");
        IntColumn tokens = IntColumn.create("tokens");
        TimeColumn ideal = new TimeColumn("ideal"), eager = new TimeColumn("eager"), fused = new TimeColumn("fused");
        DoubleColumn speedup = DoubleColumn.create("speedup"), eagerPct = DoubleColumn.create("eager_pct_floor"), fusedPct = DoubleColumn.create("fused_pct_floor");
        record Slot(Variant variant, Replay replay) {}
        record Group(OpId op, Pass pass, long tokens) {}
        Map<Group, Map<Slot, Row>> groups = new LinkedHashMap<>();
        for (Row r : rows) groups.computeIfAbsent(new Group(r.op(), r.pass(), r.tokens()), k -> new HashMap<>()).put(new Slot(r.variant(), r.replay()), r);
        boolean graphs = rows.stream().anyMatch(r -> r.replay() == Replay.GRAPH);
        TimeColumn eagerGraph = new TimeColumn("eager_graph"), fusedGraph = new TimeColumn("fused_graph");
        for (var e : groups.entrySet()) {
            Map<Slot, Row> slots = e.getValue();
            Row eg = slots.get(new Slot(Variant.EAGER, Replay.DIRECT)), fu = slots.get(new Slot(Variant.FUSED, Replay.DIRECT));
            Row any = slots.values().iterator().next();
            op.append(e.getKey().op().name());
            pass.append(e.getKey().pass().id());
            tokens.append((int) e.getKey().tokens());
            ideal.append(any.idealUs());
            eager.append(eg == null ? Double.NaN : eg.measuredUs());
            fused.append(fu == null ? Double.NaN : fu.measuredUs());
            speedup.append(eg == null || fu == null ? Double.NaN : round(eg.measuredUs() / fu.measuredUs(), 2));
            eagerPct.append(eg == null ? Double.NaN : round(eg.percentOfFloor(), 1));
            fusedPct.append(fu == null ? Double.NaN : round(fu.percentOfFloor(), 1));
            Row egg = slots.get(new Slot(Variant.EAGER, Replay.GRAPH)), fug = slots.get(new Slot(Variant.FUSED, Replay.GRAPH));
            eagerGraph.append(egg == null ? Double.NaN : egg.measuredUs());
            fusedGraph.append(fug == null ? Double.NaN : fug.measuredUs());
            List<String> why = new ArrayList<>();
            for (var se : slots.entrySet()) {
                se.getValue().measurement().noisy().ifPresent(w -> why.add(se.getValue().key().series() + ": " + w));
            }
            noisy.append(String.join("; ", why.stream().sorted().toList()));
        }
        t.addColumns(op, pass, tokens, ideal.column(), eager.column(), fused.column(), speedup, eagerPct, fusedPct);
        if (graphs) t.addColumns(eagerGraph.column(), fusedGraph.column());
        if (noisy.asList().stream().anyMatch(x -> !x.isEmpty())) t.addColumns(noisy);
        return t;
    }

    public static Table correctness(List<Correctness> checks) {
        Table t = Table.create("correctness vs fp64 and eager");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass"), variant = StringColumn.create("variant"),
                tensor = StringColumn.create("tensor"), ok = StringColumn.create("verdict");
        DoubleColumn relL2 = DoubleColumn.create("rel_l2_vs_fp64"), limit = DoubleColumn.create("rel_l2_limit"), ulp = DoubleColumn.create("max_ulp_vs_fp64"),
                relEager = DoubleColumn.create("rel_l2_vs_eager");
        for (Correctness c : checks) {
            for (int i = 0; i < c.vsReference().size(); i++) {
                var e = c.vsReference().get(i);
                op.append(c.op());
                pass.append(c.pass().id());
                variant.append(c.variant().id());
                tensor.append(e.tensor());
                relL2.append(Numbers.significant(e.relL2(), 3));
                limit.append(Numbers.significant(c.tolerance(), 3));
                ulp.append(round(e.maxUlp(), 2));
                relEager.append(c.vsEager().size() > i ? Numbers.significant(c.vsEager().get(i).relL2(), 3) : Double.NaN);
                ok.append(c.passed() ? "ok" : "FAIL");
            }
        }
        t.addColumns(op, pass, variant, tensor, relL2, limit, ulp, relEager, ok);
        return t;
    }

    /** A table as a GitHub markdown table (findings docs, notebooks' text/markdown). */
    public static String markdown(Table t) {
        StringBuilder sb = new StringBuilder("|");
        for (String name : t.columnNames()) sb.append(' ').append(name).append(" |");
        sb.append("\n|");
        for (int i = 0; i < t.columnCount(); i++) sb.append(t.column(i) instanceof StringColumn ? "---|" : "---:|");
        sb.append('\n');
        for (int r = 0; r < t.rowCount(); r++) {
            sb.append('|');
            for (int c = 0; c < t.columnCount(); c++) sb.append(' ').append(t.column(c).getString(r)).append(" |");
            sb.append('\n');
        }
        return sb.toString();
    }

    static double round(double v, int places) { return Numbers.places(v, places); }
}
