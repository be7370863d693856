package gluelab.workflow.correctness;

import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.List;

/**
 * Step 08's verdicts: every output and gradient of every candidate, per dtype, vs fp64 and vs eager.
 * The table puts the rel L2 limit beside the measured rel L2, since that is what the verdict is
 * judged on (the ulp columns are shown for parity, not judged against a limit).
 */
public record CorrectnessResult(int format, List<CheckRow> rows) {
    public static final int FORMAT = 1;

    public CorrectnessResult {
        rows = List.copyOf(rows);
    }

    public boolean passed() { return rows.stream().allMatch(CheckRow::ok); }

    public List<CheckRow> failures() { return rows.stream().filter(r -> !r.ok()).toList(); }

    /** Whether every row of {@code subject} (an op or region name) passed. */
    public boolean passed(String subject) { return rows.stream().filter(r -> r.subject().equals(subject)).allMatch(CheckRow::ok); }

    public String summary() {
        // A candidate is a variant of a subject (the model's fix, the op's fused kernel): two fixes of one model are two.
        long candidates = rows.stream().map(r -> r.subject() + " " + r.candidate()).distinct().count();
        String limits = String.join(", ", rows.stream().filter(r -> r.vsFp64() != null && r.vsFp64().against().equals("fp64")).map(r -> String.format(java.util.Locale.ROOT, "%.1e", r.tolerance()))
                .distinct().toList());
        return rows.size() + " outputs and gradients of " + candidates + (candidates == 1 ? " candidate" : " candidates") + " checked"
                + (passed() ? ", all ok" + (limits.isEmpty() ? "" : " (rel L2 limit " + limits + ")") : "; FAIL: " + failures().stream()
                .map(r -> r.subject() + " " + r.candidate() + " " + r.dtype().id() + (r.tensor().isEmpty() ? "" : " " + r.tensor())).distinct().toList());
    }

    private static final Column CANDIDATE = Column.text("candidate", "the subject and the variant checked"),
            DTYPE = Column.text("dtype", "the dtype it ran in");

    /** One row per output and gradient, the tolerance ({@code rel_l2_limit}) beside the verdict. */
    public Table table() {
        var t = DataTable.builder("correctness: outputs and every gradient vs fp64 and eager", CANDIDATE, DTYPE, Columns.PASS, Columns.TENSOR,
                Columns.REL_L2_VS_FP64, Columns.REL_L2_LIMIT, Columns.MAX_ULP_VS_FP64, Columns.REL_L2_VS_EAGER, Columns.MAX_ULP_VS_EAGER, Columns.VERDICT);
        for (CheckRow r : rows) {
            t.row(r.subject() + " " + r.candidate(), r.dtype().id(), r.pass(), r.tensor(), r.vsFp64() == null ? null : r.vsFp64().relL2(), r.tolerance(),
                    r.vsFp64() == null ? null : r.vsFp64().maxUlp(), r.vsEager() == null ? null : r.vsEager().relL2(),
                    r.vsEager() == null ? null : r.vsEager().maxUlp(), r.verdict());
        }
        return TableFormat.tablesaw(t.build());
    }

    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static CorrectnessResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, CorrectnessResult.class, FORMAT); }
}
