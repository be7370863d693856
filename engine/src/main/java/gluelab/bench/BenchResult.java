package gluelab.bench;

import gluelab.chart.Charts;
import gluelab.check.Correctness;
import gluelab.ops.Skip;
import gluelab.record.Row;
import gluelab.report.Tables;
import org.knowm.xchart.CategoryChart;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.util.List;

/** Rows measured by a bench run, what it skipped and why, with the views a notebook cell asks for. */
public record BenchResult(List<Row> rows, List<Correctness> checks, List<Skip> skipped) {
    public BenchResult {
        rows = List.copyOf(rows);
        checks = List.copyOf(checks);
        skipped = List.copyOf(skipped);
    }

    public BenchResult(List<Row> rows, List<Correctness> checks) { this(rows, checks, List.of()); }

    public Table table() { return Tables.results(rows); }

    /** One row per thing the plan asked for and the run did not measure, with the reason ({@code --variants region} on an op without an expression). */
    public Table notMeasured() {
        StringColumn subject = StringColumn.create("not measured"), reason = StringColumn.create("reason");
        for (Skip s : skipped) {
            subject.append(s.subject());
            reason.append(s.reason());
        }
        return Table.create("not measured").addColumns(subject, reason);
    }

    public Table baselines() { return Tables.baselines(rows); }

    public Table correctness() { return Tables.correctness(checks); }

    public CategoryChart chart() { return Charts.baselines(rows, rows.getFirst().pass().id()); }

    public CategoryChart chart(String pass) { return Charts.baselines(rows, pass); }
}
