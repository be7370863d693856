package gluelab.report;

import gluelab.check.Correctness;
import gluelab.record.Row;
import tech.tablesaw.api.*;

import java.util.*;

/** Tablesaw views of measured rows: the results table, eager-vs-fused baselines, correctness. */
public final class Tables {
    private Tables() {}

    public static Table results(List<Row> rows) {
        Table t = Table.create("measurements");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass"), variant = StringColumn.create("variant");
        IntColumn tokens = IntColumn.create("tokens"), kernels = IntColumn.create("kernels"), n = IntColumn.create("samples");
        DoubleColumn median = DoubleColumn.create("median_us"), min = DoubleColumn.create("min_us"), ideal = DoubleColumn.create("ideal_us"),
                pct = DoubleColumn.create("pct_of_floor"), gbs = DoubleColumn.create("GB_per_s"), noise = DoubleColumn.create("rel_stdev_pct"),
                peak = DoubleColumn.create("peak_MiB");
        StringColumn stop = StringColumn.create("stop");
        for (Row r : rows) {
            op.append(r.op());
            pass.append(r.pass());
            variant.append(r.variant());
            tokens.append((int) r.tokens());
            median.append(round(r.measuredUs(), 1));
            min.append(round(r.measurement().summary().min() * 1e6, 1));
            ideal.append(round(r.idealUs(), 1));
            pct.append(round(r.percentOfFloor(), 1));
            gbs.append(round(r.achievedGBs(), 1));
            noise.append(round(100 * r.measurement().summary().relStdev(), 2));
            n.append(r.measurement().summary().count());
            kernels.append(r.measurement().kernels());
            peak.append(round(r.measurement().peakBytes() / 1048576.0, 1));
            stop.append(r.measurement().stopReason().name().toLowerCase(Locale.ROOT));
        }
        t.addColumns(op, pass, variant, tokens, median, min, ideal, pct, gbs, noise, n, kernels, peak, stop);
        return t;
    }

    /** One line per (op, pass, tokens): eager and fused side by side with the speedup. */
    public static Table baselines(List<Row> rows) {
        Table t = Table.create("baselines: eager vs fused");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass");
        IntColumn tokens = IntColumn.create("tokens");
        DoubleColumn ideal = DoubleColumn.create("ideal_us"), eager = DoubleColumn.create("eager_us"), fused = DoubleColumn.create("fused_us"),
                speedup = DoubleColumn.create("speedup"), eagerPct = DoubleColumn.create("eager_pct_floor"), fusedPct = DoubleColumn.create("fused_pct_floor");
        // Slots: eager, fused, eager under a CUDA graph, fused under a CUDA graph.
        List<String> slots = List.of("eager", "fused", "eager@graph", "fused@graph");
        Map<String, Row[]> pairs = new LinkedHashMap<>();
        for (Row r : rows) {
            int slot = slots.indexOf(r.variant());
            if (slot < 0) continue;
            pairs.computeIfAbsent(r.op() + "|" + r.pass() + "|" + r.tokens(), k -> new Row[4])[slot] = r;
        }
        boolean graphs = rows.stream().anyMatch(r -> r.variant().endsWith("@graph"));
        DoubleColumn eagerGraph = DoubleColumn.create("eager_graph_us"), fusedGraph = DoubleColumn.create("fused_graph_us");
        for (Row[] pair : pairs.values()) {
            Row any = java.util.Arrays.stream(pair).filter(java.util.Objects::nonNull).findFirst().orElseThrow();
            eagerGraph.append(pair[2] == null ? Double.NaN : round(pair[2].measuredUs(), 1));
            fusedGraph.append(pair[3] == null ? Double.NaN : round(pair[3].measuredUs(), 1));
            op.append(any.op());
            pass.append(any.pass());
            tokens.append((int) any.tokens());
            ideal.append(round(any.idealUs(), 1));
            eager.append(pair[0] == null ? Double.NaN : round(pair[0].measuredUs(), 1));
            fused.append(pair[1] == null ? Double.NaN : round(pair[1].measuredUs(), 1));
            speedup.append(pair[0] == null || pair[1] == null ? Double.NaN : round(pair[0].measuredUs() / pair[1].measuredUs(), 2));
            eagerPct.append(pair[0] == null ? Double.NaN : round(pair[0].percentOfFloor(), 1));
            fusedPct.append(pair[1] == null ? Double.NaN : round(pair[1].percentOfFloor(), 1));
        }
        t.addColumns(op, pass, tokens, ideal, eager, fused, speedup, eagerPct, fusedPct);
        if (graphs) t.addColumns(eagerGraph, fusedGraph);
        return t;
    }

    public static Table correctness(List<Correctness> checks) {
        Table t = Table.create("correctness vs fp64 and eager");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass"), variant = StringColumn.create("variant"),
                tensor = StringColumn.create("tensor"), ok = StringColumn.create("verdict");
        DoubleColumn relL2 = DoubleColumn.create("rel_l2_vs_fp64"), ulp = DoubleColumn.create("max_ulp_vs_fp64"),
                relEager = DoubleColumn.create("rel_l2_vs_eager");
        for (Correctness c : checks) {
            for (int i = 0; i < c.vsReference().size(); i++) {
                var e = c.vsReference().get(i);
                op.append(c.op());
                pass.append(c.pass());
                variant.append(c.variant());
                tensor.append(e.tensor());
                relL2.append(e.relL2());
                ulp.append(round(e.maxUlp(), 2));
                relEager.append(c.vsEager().size() > i ? c.vsEager().get(i).relL2() : Double.NaN);
                ok.append(c.passed() ? "ok" : "FAIL");
            }
        }
        t.addColumns(op, pass, variant, tensor, relL2, ulp, relEager, ok);
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

    static double round(double v, int places) {
        if (!Double.isFinite(v)) return v;
        double f = Math.pow(10, places);
        return Math.round(v * f) / f;
    }
}
