package gluelab.workflow.model;

import gluelab.rank.SourceCandidate;
import gluelab.rank.SourceRanking;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelProfile;
import gluelab.trace.TraceDiff;
import gluelab.trace.TraceSummary;
import gluelab.torch.ModelTree;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.util.Map;

/** Steps 01, 03, 04, 05 and 07 of a model experiment as the tables a notebook shows (the same numbers as the CLI's text). */
public final class ModelTables {
    /** Location shown for ops that ran outside the model file. */
    static final String OUTSIDE = "(outside the model file)";

    private ModelTables() {}

    /** One row per tree and token count: times, compile accounting, and the ratio against eager or why there is none. */
    public static Table baselines(ModelBaselines b) {
        Table t = Table.create("baselines of " + b.model() + ", fwd+bwd").addColumns(StringColumn.create("tree"), LongColumn.create("tokens"),
                DoubleColumn.create("wall_us"), DoubleColumn.create("noise_pct"), DoubleColumn.create("kernel_us"), IntColumn.create("kernels"),
                DoubleColumn.create("peak_MiB"), DoubleColumn.create("compile_s"), IntColumn.create("graphs"), IntColumn.create("breaks"),
                IntColumn.create("recompiles"), StringColumn.create("vs_eager"));
        for (ModelBaselines.Row r : b.rows()) {
            boolean kernels = !Double.isNaN(r.kernelSeconds());
            t.stringColumn("tree").append(r.tree().id());
            t.longColumn("tokens").append(r.tokens());
            t.doubleColumn("wall_us").append(r.failed() ? Double.NaN : round(r.wallUs(), 1));
            t.doubleColumn("noise_pct").append(r.failed() ? Double.NaN : round(100 * r.run().noise(), 1));
            t.doubleColumn("kernel_us").append(kernels ? round(r.kernelUs(), 1) : Double.NaN);
            if (kernels) t.intColumn("kernels").append(r.kernels()); else t.intColumn("kernels").appendMissing();
            t.doubleColumn("peak_MiB").append(r.peakBytes() < 0 ? Double.NaN : round(r.peakBytes() / 1048576.0, 1));
            t.doubleColumn("compile_s").append(round(r.compile().seconds(), 2));
            t.intColumn("graphs").append(r.compile().graphs());
            t.intColumn("breaks").append(r.compile().graphBreaks());
            t.intColumn("recompiles").append(r.compile().recompiles());
            t.stringColumn("vs_eager").append(ModelBaselinesStep.vsEager(b, r, "(noisy)"));
        }
        return t;
    }

    /** One row per profiled tree: op time per step, the trace import's kernel count and time, the change against eager. */
    public static Table trees(ModelProfile p, Map<ModelTree, TraceSummary> summaries, Map<ModelTree, TraceDiff> diffs) {
        Table t = Table.create("trees of " + p.model() + " at " + gluelab.units.Numbers.count(p.tokens(), "token") + ", fwd+bwd per step").addColumns(StringColumn.create("tree"),
                DoubleColumn.create("ops_us"), IntColumn.create("kernels"), DoubleColumn.create("kernel_us"), DoubleColumn.create("kernel_us_vs_eager"),
                StringColumn.create("error"));
        for (ModelProfile.TreeProfile tp : p.trees()) {
            // A CPU trace has no device kernels: its kernel columns are left empty rather than 0.
            TraceSummary s = summaries.get(tp.tree()) == null || summaries.get(tp.tree()).kernelCount() == 0 ? null : summaries.get(tp.tree());
            TraceDiff d = diffs.get(tp.tree());
            t.stringColumn("tree").append(tp.tree().id());
            t.doubleColumn("ops_us").append(tp.failed() ? Double.NaN : round(tp.stepUs(), 1));
            if (s == null) t.intColumn("kernels").appendMissing(); else t.intColumn("kernels").append(s.kernelCount());
            t.doubleColumn("kernel_us").append(s == null ? Double.NaN : round(s.kernelTimeUs(), 1));
            t.doubleColumn("kernel_us_vs_eager").append(d == null || s == null ? Double.NaN : round(d.kernelTimeDeltaUs(), 1));
            t.stringColumn("error").append(tp.failed() ? "FAILED: " + tp.error() : "");
        }
        return t;
    }

    /** A tree's ops per source location, costliest first, the first {@code n}. */
    public static Table sourceRows(ModelProfile.TreeProfile tp, int n) {
        Table t = Table.create("ops of the " + tp.tree().id() + " tree per source line and input shapes").addColumns(StringColumn.create("location"),
                StringColumn.create("op"), StringColumn.create("pass"), StringColumn.create("input_shapes"), IntColumn.create("calls"), DoubleColumn.create("us"));
        tp.rows().stream().sorted(java.util.Comparator.comparingDouble(ModelProfile.SourceRow::us).reversed()).limit(n).forEach(r -> {
            t.stringColumn("location").append(r.location().isEmpty() ? OUTSIDE : r.location());
            t.stringColumn("op").append(r.op());
            t.stringColumn("pass").append(r.pass());
            t.stringColumn("input_shapes").append(r.shapes());
            t.intColumn("calls").append(r.calls());
            t.doubleColumn("us").append(round(r.us(), 1));
        });
        return t;
    }

    /** The first {@code n} candidates of a model's ranking, with the stop rule's verdict; then the ops whose bytes are unknown, unranked. */
    public static Table ranking(SourceRanking r, int n) {
        Table t = Table.create("ranking per source line and op").addColumns(IntColumn.create("rank"), StringColumn.create("location"), StringColumn.create("op"),
                StringColumn.create("pass"), StringColumn.create("kind"), IntColumn.create("calls"), DoubleColumn.create("measured_us"), DoubleColumn.create("ideal_us"),
                DoubleColumn.create("share_pct"), DoubleColumn.create("score"), StringColumn.create("verdict"));
        int i = 0;
        for (SourceCandidate c : r.ranked()) {
            if (i++ >= n) break;
            t.intColumn("rank").append(i);
            candidate(t, r, c);
        }
        // Unranked: no floor, so no gap to rank by; shown with their share so a costly one is still seen.
        for (SourceCandidate c : r.bytesUnknown().subList(0, Math.min(n, r.bytesUnknown().size()))) {
            t.intColumn("rank").appendMissing();
            candidate(t, r, c);
        }
        return t;
    }

    private static void candidate(Table t, SourceRanking r, SourceCandidate c) {
        t.stringColumn("location").append(c.location().isEmpty() ? OUTSIDE : c.location());
        t.stringColumn("op").append(c.op());
        t.stringColumn("pass").append(c.pass());
        t.stringColumn("kind").append(c.kind().id());
        t.intColumn("calls").append(c.calls());
        t.doubleColumn("measured_us").append(round(c.measuredUs(), 1));
        // Two significant digits below 0.01 us: a 0-dim copy's floor is small, not 0.
        t.doubleColumn("ideal_us").append(c.idealUs() < 0.01 ? gluelab.units.Numbers.significant(c.idealUs(), 2) : round(c.idealUs(), 2));
        t.doubleColumn("share_pct").append(round(100 * c.share(), 2));
        t.doubleColumn("score").append(round(c.score(), 1));
        t.stringColumn("verdict").append(r.verdict(c));
    }

    /** Step 05: one row per fix and token count against the model as written, with the verdict or why it failed. */
    public static Table fixes(ModelFixResult r) {
        Table t = Table.create("fixes of " + r.model() + ", fwd+bwd against the model as written, cheapest first").addColumns(StringColumn.create("fix"),
                StringColumn.create("kind"), LongColumn.create("tokens"), DoubleColumn.create("baseline_us"), DoubleColumn.create("fixed_us"),
                DoubleColumn.create("delta_pct"), DoubleColumn.create("compile_s"), StringColumn.create("verdict"));
        for (ModelFixResult.FixRow f : r.rows()) {
            t.stringColumn("fix").append(f.fix());
            t.stringColumn("kind").append(r.kinds(f));
            t.longColumn("tokens").append(f.tokens());
            t.doubleColumn("baseline_us").append(round(f.baselineUs(), 1));
            t.doubleColumn("fixed_us").append(round(f.fixedUs(), 1));
            t.doubleColumn("delta_pct").append(round(f.deltaPercent(), 1));
            t.doubleColumn("compile_s").append(round(f.compileSeconds(), 2));
            t.stringColumn("verdict").append((f.win() ? "win: " : "") + f.describe());
        }
        return t;
    }

    /** Step 05's interaction table (each alone, all but one, all together), or its "best known kernel" rows: empty when the step has none. */
    public static Table interactions(ModelFixResult r) {
        Table t = Table.create("interactions: fixes alone and together").addColumns(LongColumn.create("tokens"), StringColumn.create("variant"),
                DoubleColumn.create("us"), DoubleColumn.create("delta_us"), StringColumn.create("note"));
        for (ModelFixResult.Combination c : r.interactions()) {
            t.longColumn("tokens").append(c.tokens());
            t.stringColumn("variant").append(c.label());
            t.doubleColumn("us").append(round(c.us(), 1));
            t.doubleColumn("delta_us").append(round(c.deltaUs(), 1));
            t.stringColumn("note").append(!c.reason().isEmpty() ? "FAILED: " + c.reason() : c.caveat());
        }
        return t;
    }

    /** Step 05's "best known kernel" rows: the catalogue op alone on the device, not inside the model. */
    public static Table references(ModelFixResult r) {
        Table t = Table.create("best known kernel per fix: the catalogue op alone, not in the model").addColumns(StringColumn.create("fix"), StringColumn.create("op"),
                LongColumn.create("tokens"), StringColumn.create("kernel"), DoubleColumn.create("eager_us"), DoubleColumn.create("kernel_us"), StringColumn.create("note"));
        for (ModelFixResult.ReferenceRow x : r.references()) {
            t.stringColumn("fix").append(x.fix());
            t.stringColumn("op").append(x.op());
            t.longColumn("tokens").append(x.tokens());
            t.stringColumn("kernel").append(x.kernel());
            t.doubleColumn("eager_us").append(round(x.eagerUs(), 1));
            t.doubleColumn("kernel_us").append(round(x.kernelUs(), 1));
            t.stringColumn("note").append(x.reason().isEmpty() ? x.caveat() : "not measured: " + x.reason());
        }
        return t;
    }

    private static double round(double v, int digits) {
        if (!Double.isFinite(v)) return v;
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
