package gluelab.torch;

import gluelab.record.Row;
import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.util.*;

/** Views of gluelab and torch rows together: one line per op instance with every variant side by side, and compile costs. */
public final class TorchTables {
    private TorchTables() {}

    private static final Column BEST = Column.text("best", "the fastest variant of the instance"),
            BEST_PCT = Column.percent("best_pct_floor", "the fastest variant's pct_of_floor");

    /** op, pass, tokens, ideal, then the median of each variant (in order of first appearance), the best's % of floor, and why any is noisy. */
    public static Table sideBySide(List<Row> rows) {
        record Instance(gluelab.ops.OpId op, gluelab.ops.Pass pass, long tokens) {}
        List<String> variants = new ArrayList<>();
        Map<Instance, Map<String, Row>> byInstance = new LinkedHashMap<>();
        for (Row r : rows) {
            if (!variants.contains(r.key().series())) variants.add(r.key().series());
            byInstance.computeIfAbsent(new Instance(r.op(), r.pass(), r.tokens()), k -> new LinkedHashMap<>()).put(r.key().series(), r);
        }
        List<Column> columns = new ArrayList<>(List.of(Columns.OP, Columns.PASS, Columns.TOKENS, Columns.IDEAL));
        for (String v : variants) columns.add(Column.time(v.replace(' ', '_'), "the median of " + v));
        columns.addAll(List.of(BEST, BEST_PCT, Columns.NOISY));
        var t = DataTable.builder("side by side: median per variant", columns);
        for (Map<String, Row> inst : byInstance.values()) {
            Row any = inst.values().iterator().next();
            List<Object> cells = new ArrayList<>(List.of(any.op().name(), any.pass().id(), any.tokens(), any.idealUs()));
            Row fastest = null;
            List<String> noisy = new ArrayList<>();
            for (String v : variants) {
                Row r = inst.get(v);
                cells.add(r == null ? null : r.measuredUs());
                if (r != null && (fastest == null || r.measuredUs() < fastest.measuredUs())) fastest = r;
                if (r != null) r.measurement().noisy().ifPresent(w -> noisy.add(v + ": " + w));
            }
            cells.addAll(List.of(fastest.key().series(), fastest.percentOfFloor(), String.join("; ", noisy)));
            t.row(cells.toArray());
        }
        return TableFormat.tablesaw(t.build().withoutEmpty(Columns.NOISY));
    }

    private static final Column SUBJECT = Column.text("subject", "what was compiled"),
            MODE = Column.text("mode", "torch.compile's mode"),
            COMPILE = Column.time("compile", "the cold compile in a worker process"),
            CACHE_LOAD = Column.time("cache_load", "the timed process's load of the compiled artefacts"),
            GRAPHS = Column.count("graphs", "graphs dynamo made"),
            BREAKS = Column.count("graph_breaks", "graph breaks"),
            RECOMPILES = Column.count("recompiles", "recompilations"),
            REASONS = Column.text("recompile reasons", "why it recompiled, with counts");

    public static Table compiles(List<CompileReport> reports) {
        var t = DataTable.builder("torch.compile: cost per subject", SUBJECT, MODE, COMPILE, CACHE_LOAD, GRAPHS, BREAKS, RECOMPILES, REASONS, Columns.ERROR);
        for (CompileReport c : reports) {
            StringBuilder why = new StringBuilder();
            c.budget().entries().forEach(e -> e.reasons().forEach(g -> why.append(why.isEmpty() ? "" : "; ").append(g.pattern()).append(" x").append(g.count())));
            t.row(c.subject(), c.mode(), c.seconds() * 1e6, c.loadSeconds() * 1e6, c.graphs(), c.graphBreaks(), c.recompiles(), why.toString(),
                    c.error() == null ? "" : c.error());
        }
        return TableFormat.tablesaw(t.build());
    }
}
