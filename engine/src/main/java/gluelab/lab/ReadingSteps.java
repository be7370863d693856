package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.Step;
import gluelab.files.AtomicFiles;
import gluelab.trace.TraceCharts;
import gluelab.trace.TraceDiff;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Steps 02 and 03 on an experiment: they measure nothing on this device (floors come from the
 * plan and the calibration, the profile from trace files), and leave their tables and chart in the
 * experiment so later steps and the findings doc can cite them.
 */
final class ReadingSteps {
    static final String IDEAL_TIMES = "ideal-times", FAMILIES = "families", FAMILIES_CHART = "families-chart";

    private ReadingSteps() {}

    /** Step 02: every catalogue op's floor at the plan's model and token counts, kept as CSV. */
    static Table idealTimes(Gluelab lab, ExperimentFolder ex) {
        ExperimentPlan plan = ex.plan();
        Table floors = lab.floors(plan.model(), plan.tokens().stream().mapToLong(Long::longValue).toArray());
        Path csv = ex.stepDir(Step.IDEAL_TIMES).resolve(IDEAL_TIMES + ".csv");
        AtomicFiles.write(csv, csv(floors));
        ex.done(Step.IDEAL_TIMES, List.of(), Map.of(IDEAL_TIMES, ex.dir().relativize(csv).toString()),
                floors.rowCount() + " floors of " + plan.model() + " at tokens " + plan.tokens() + ", bandwidth " + lab.calibration().describe());
        return floors;
    }

    /** Step 03: trace {@code compiled} against trace {@code eager} by kernel family, kept as CSV and a chart. */
    static TraceDiff profileDiff(Gluelab lab, ExperimentFolder ex, String eager, String compiled) {
        TraceDiff diff = lab.diff(eager, compiled);
        Path dir = ex.stepDir(Step.PROFILE_DIFF);
        Path csv = dir.resolve(FAMILIES + ".csv");
        AtomicFiles.write(csv, csv(families(diff)));
        Path chart = Charts.save(TraceCharts.families(diff), ex.chartsDir().resolve(Step.PROFILE_DIFF.number() + "-families"));
        String summary = String.format("%s -> %s: kernel time %+.1f us, kernels %+d", Path.of(eager).getFileName(), Path.of(compiled).getFileName(),
                diff.kernelTimeDeltaUs(), diff.kernelCountDelta());
        ex.devlog().measurement("profile diff " + summary);
        ex.done(Step.PROFILE_DIFF, List.of(), Map.of(FAMILIES, ex.dir().relativize(csv).toString(), FAMILIES_CHART, ex.dir().relativize(chart).toString()), summary);
        return diff;
    }

    /** One row per kernel family: time and count in A and B, and the change, largest change first. */
    static Table families(TraceDiff diff) {
        StringColumn family = StringColumn.create("family");
        DoubleColumn aUs = DoubleColumn.create("A_us"), bUs = DoubleColumn.create("B_us"), delta = DoubleColumn.create("delta_us"),
                aShare = DoubleColumn.create("A_share_pct"), bShare = DoubleColumn.create("B_share_pct");
        IntColumn aCount = IntColumn.create("A_kernels"), bCount = IntColumn.create("B_kernels");
        for (TraceDiff.FamilyDelta f : diff.families()) {
            family.append(f.family());
            aUs.append(f.aUs());
            bUs.append(f.bUs());
            delta.append(f.deltaUs());
            aCount.append(f.aCount());
            bCount.append(f.bCount());
            aShare.append(f.aShare());
            bShare.append(f.bShare());
        }
        return Table.create("kernel families: A = " + Path.of(diff.a().file()).getFileName() + ", B = " + Path.of(diff.b().file()).getFileName())
                .addColumns(family, aUs, bUs, delta, aCount, bCount, aShare, bShare);
    }

    private static String csv(Table t) {
        StringWriter w = new StringWriter();
        t.write().csv(w);
        return w.toString();
    }
}
