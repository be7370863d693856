package gluelab.workflow.confirm;

import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** Step 07 of a model as tables: the rows and the processes behind them. */
public final class ModelConfirmTables {
    private ModelConfirmTables() {}

    /** Step 07: per fix, token count and launch kind, each side's median over the fresh processes, with n, the noise its delta must clear and the verdict (inconclusive when inside it). */
    public static Table confirmation(ModelConfirmResult r) {
        Table t = Table.create("confirmation " + r.id() + " of " + r.model() + ": fwd+bwd in fresh Python processes").addColumns(StringColumn.create("fix"),
                LongColumn.create("tokens"), StringColumn.create("launch"), DoubleColumn.create("baseline_us"), IntColumn.create("baseline_n"),
                DoubleColumn.create("fixed_us"), IntColumn.create("fixed_n"), DoubleColumn.create("delta_pct"), DoubleColumn.create("noise_pct"), StringColumn.create("verdict"));
        for (var x : r.rows()) {
            t.stringColumn("fix").append(x.fix());
            t.longColumn("tokens").append(x.tokens());
            t.stringColumn("launch").append(x.replay().launch());
            t.doubleColumn("baseline_us").append(round(x.baselineUs(), 1));
            t.intColumn("baseline_n").append(x.baselineN());
            t.doubleColumn("fixed_us").append(round(x.fixedUs(), 1));
            t.intColumn("fixed_n").append(x.fixedN());
            t.doubleColumn("delta_pct").append(round(x.deltaPercent(), 1));
            t.doubleColumn("noise_pct").append(x.measured() ? round(100 * x.noise(), 1) : Double.NaN);
            t.stringColumn("verdict").append(x.describe() + (x.caveat().isEmpty() ? "" : "; " + x.caveat()));
        }
        return t;
    }

    /** Step 07's processes: pid, state or why it FAILED, the clocks it saw, seconds. */
    public static Table processes(ModelConfirmResult r) {
        Table t = Table.create("processes").addColumns(IntColumn.create("process"), LongColumn.create("pid"), StringColumn.create("state"),
                StringColumn.create("clocks"), DoubleColumn.create("seconds"));
        for (var p : r.processes()) {
            t.intColumn("process").append(p.index());
            t.longColumn("pid").append(p.pid());
            t.stringColumn("state").append(p.ok() ? "OK" : "FAILED: " + p.reason());
            t.stringColumn("clocks").append(p.clocks());
            t.doubleColumn("seconds").append(round(p.seconds(), 1));
        }
        return t;
    }

    private static double round(double v, int digits) {
        if (!Double.isFinite(v)) return v;
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
