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

/**
 * Rows measured by a bench run, what it skipped and why, and the device's name (for chart titles;
 * null: not known), with the views a notebook cell asks for.
 */
public record BenchResult(List<Row> rows, List<Correctness> checks, List<Skip> skipped, String device) {
    public BenchResult {
        rows = List.copyOf(rows);
        checks = List.copyOf(checks);
        skipped = List.copyOf(skipped);
    }

    public BenchResult(List<Row> rows, List<Correctness> checks, List<Skip> skipped) { this(rows, checks, skipped, null); }

    public BenchResult(List<Row> rows, List<Correctness> checks) { this(rows, checks, List.of(), null); }

    /** The same result with {@code rows} in place of its own (torch's rows joined to gluelab's). */
    public BenchResult withRows(List<Row> rows) { return new BenchResult(rows, checks, skipped, device); }

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

    /** Per instance with a fused row, gluelab's best known kernel: the catalogue's, or the generated region where that is faster beyond the noise ({@link gluelab.report.BestKnown}). */
    public Table bestKnown() { return gluelab.report.BestKnown.table(rows); }

    /** Whether a region was measured beside a fused kernel (the best known table then has something to say). */
    public boolean hasRegionBesideFused() {
        return rows.stream().anyMatch(r -> r.variant() == gluelab.ops.Variant.REGION) && rows.stream().anyMatch(r -> r.variant() == gluelab.ops.Variant.FUSED);
    }

    public Table correctness() { return Tables.correctness(checks); }

    /** The first row's pass charted: {@link Charts#baselines}, the device in its title. */
    public CategoryChart chart() { return chart(rows.getFirst().pass().id()); }

    public CategoryChart chart(String pass) { return Charts.baselines(rows, pass, device); }
}
