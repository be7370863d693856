package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.Step;
import gluelab.files.AtomicFiles;
import gluelab.trace.TraceCharts;
import gluelab.trace.TraceDiff;
import gluelab.table.Column;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

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
        try (var running = ex.running(Step.IDEAL_TIMES)) {
            ExperimentPlan plan = ex.plan();
            DataTable data = lab.floorData(plan.model(), plan.tokens().stream().mapToLong(Long::longValue).toArray());
            Table floors = TableFormat.tablesaw(data);
            Path csv = ex.stepDir(Step.IDEAL_TIMES).resolve(IDEAL_TIMES + ".csv");
            AtomicFiles.write(csv, TableFormat.csv(data));
            ex.done(Step.IDEAL_TIMES, List.of(), Map.of(IDEAL_TIMES, ex.dir().relativize(csv).toString()),
                    floors.rowCount() + " floors of " + plan.model() + " at tokens " + plan.tokens() + ", bandwidth " + lab.calibration().describe());
            return floors;
        }
    }

    /** Step 03: trace {@code compiled} against trace {@code eager} by kernel family, kept as CSV and a chart. */
    static TraceDiff profileDiff(Gluelab lab, ExperimentFolder ex, String eager, String compiled) {
        try (var running = ex.running(Step.PROFILE_DIFF)) {
            TraceDiff diff = lab.diff(eager, compiled);
            Path dir = ex.stepDir(Step.PROFILE_DIFF);
            Path csv = dir.resolve(FAMILIES + ".csv");
            AtomicFiles.write(csv, TableFormat.csv(familyData(diff)));
            Path chart = Charts.save(TraceCharts.families(diff), ex.chartsDir().resolve(Step.PROFILE_DIFF.number() + "-families"));
            String summary = String.format("%s -> %s: kernel time %+.1f us, kernels %+d", Path.of(eager).getFileName(), Path.of(compiled).getFileName(),
                    diff.kernelTimeDeltaUs(), diff.kernelCountDelta());
            ex.devlog().measurement("profile diff " + summary);
            ex.done(Step.PROFILE_DIFF, List.of(), Map.of(FAMILIES, ex.dir().relativize(csv).toString(), FAMILIES_CHART, ex.dir().relativize(chart).toString()), summary);
            return diff;
        }
    }

    private static final Column FAMILY = Column.text("family", "a kernel family (norm, rope, elementwise, gemm, memcpy...)"),
            A = Column.time("A", "the family's kernel time in trace A"), B = Column.time("B", "the family's kernel time in trace B"),
            DELTA = Column.time("delta", "B minus A"),
            A_KERNELS = Column.count("A_kernels", "the family's kernel launches in A"), B_KERNELS = Column.count("B_kernels", "the family's kernel launches in B"),
            A_SHARE = Column.percent("A_share_pct", "the family's share of A's kernel time"), B_SHARE = Column.percent("B_share_pct", "the family's share of B's kernel time");

    /** One row per kernel family: time and count in A and B, and the change, largest change first. */
    static Table families(TraceDiff diff) { return TableFormat.tablesaw(familyData(diff)); }

    static DataTable familyData(TraceDiff diff) {
        var t = DataTable.builder("kernel families: A = " + Path.of(diff.a().file()).getFileName() + ", B = " + Path.of(diff.b().file()).getFileName(),
                FAMILY, A, B, DELTA, A_KERNELS, B_KERNELS, A_SHARE, B_SHARE);
        for (TraceDiff.FamilyDelta f : diff.families()) t.row(f.family(), f.aUs(), f.bUs(), f.deltaUs(), f.aCount(), f.bCount(), f.aShare(), f.bShare());
        return t.build();
    }
}
