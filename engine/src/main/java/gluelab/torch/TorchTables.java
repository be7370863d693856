package gluelab.torch;

import gluelab.record.Row;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.util.*;

/** Views of gluelab and torch rows together: one line per op instance with every variant side by side, and compile costs. */
public final class TorchTables {
    private TorchTables() {}

    /** op, pass, tokens, ideal, then the median of each variant (in order of first appearance) and % of floor of the best. */
    public static Table sideBySide(List<Row> rows) {
        record Instance(gluelab.ops.OpId op, gluelab.ops.Pass pass, long tokens) {}
        List<String> variants = new ArrayList<>();
        Map<Instance, Map<String, Row>> byInstance = new LinkedHashMap<>();
        for (Row r : rows) {
            if (!variants.contains(r.key().series())) variants.add(r.key().series());
            byInstance.computeIfAbsent(new Instance(r.op(), r.pass(), r.tokens()), k -> new LinkedHashMap<>()).put(r.key().series(), r);
        }
        Table t = Table.create("side by side: median us per variant");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass"), best = StringColumn.create("best");
        IntColumn tokens = IntColumn.create("tokens");
        DoubleColumn ideal = DoubleColumn.create("ideal_us"), bestPct = DoubleColumn.create("best_pct_floor");
        Map<String, DoubleColumn> cols = new LinkedHashMap<>();
        for (String v : variants) cols.put(v, DoubleColumn.create(v.replace(' ', '_') + "_us"));
        for (Map<String, Row> inst : byInstance.values()) {
            Row any = inst.values().iterator().next();
            op.append(any.op().name());
            pass.append(any.pass().id());
            tokens.append((int) any.tokens());
            ideal.append(round(any.idealUs()));
            Row fastest = null;
            for (String v : variants) {
                Row r = inst.get(v);
                cols.get(v).append(r == null ? Double.NaN : round(r.measuredUs()));
                if (r != null && (fastest == null || r.measuredUs() < fastest.measuredUs())) fastest = r;
            }
            best.append(fastest.key().series());
            bestPct.append(round(fastest.percentOfFloor()));
        }
        t.addColumns(op, pass, tokens, ideal);
        cols.values().forEach(t::addColumns);
        t.addColumns(best, bestPct);
        return t;
    }

    public static Table compiles(List<CompileReport> reports) {
        Table t = Table.create("torch.compile: cost per subject");
        StringColumn subject = StringColumn.create("subject"), mode = StringColumn.create("mode"), error = StringColumn.create("error"),
                reasons = StringColumn.create("recompile reasons");
        DoubleColumn seconds = DoubleColumn.create("compile_s"), load = DoubleColumn.create("cache_load_s");
        IntColumn graphs = IntColumn.create("graphs"), breaks = IntColumn.create("graph_breaks"), recompiles = IntColumn.create("recompiles");
        for (CompileReport c : reports) {
            subject.append(c.subject());
            mode.append(c.mode());
            seconds.append(Math.round(c.seconds() * 100) / 100.0);
            load.append(Math.round(c.loadSeconds() * 100) / 100.0);
            graphs.append(c.graphs());
            breaks.append(c.graphBreaks());
            recompiles.append(c.recompiles());
            StringBuilder why = new StringBuilder();
            c.budget().entries().forEach(e -> e.reasons().forEach(g -> why.append(why.isEmpty() ? "" : "; ").append(g.pattern()).append(" x").append(g.count())));
            reasons.append(why.toString());
            error.append(c.error());
        }
        t.addColumns(subject, mode, seconds, load, graphs, breaks, recompiles, reasons, error);
        return t;
    }

    private static double round(double v) { return Math.round(v * 10) / 10.0; }
}
