package gluelab.workflow.correctness;

import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
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
        long subjects = rows.stream().map(CheckRow::subject).distinct().count();
        return rows.size() + " outputs and gradients of " + subjects + " candidates checked"
                + (passed() ? ", all ok" : "; FAIL: " + failures().stream().map(r -> r.subject() + " " + r.dtype().id() + " " + r.tensor()).distinct().toList());
    }

    public Table table() {
        StringColumn subject = StringColumn.create("candidate"), dtype = StringColumn.create("dtype"), pass = StringColumn.create("pass"),
                tensor = StringColumn.create("tensor"), verdict = StringColumn.create("verdict");
        DoubleColumn rel = DoubleColumn.create("rel_L2_vs_fp64"), limit = DoubleColumn.create("rel_L2_limit"), ulp = DoubleColumn.create("max_ulp_vs_fp64"), relE = DoubleColumn.create("rel_L2_vs_eager"),
                ulpE = DoubleColumn.create("max_ulp_vs_eager");
        for (CheckRow r : rows) {
            subject.append(r.subject() + " " + r.candidate());
            dtype.append(r.dtype().id());
            pass.append(r.pass());
            tensor.append(r.tensor());
            rel.append(r.vsFp64() == null ? Double.NaN : r.vsFp64().relL2());
            limit.append(r.tolerance());
            ulp.append(r.vsFp64() == null ? Double.NaN : r.vsFp64().maxUlp());
            relE.append(r.vsEager() == null ? Double.NaN : r.vsEager().relL2());
            ulpE.append(r.vsEager() == null ? Double.NaN : r.vsEager().maxUlp());
            verdict.append(r.verdict());
        }
        return Table.create("correctness: outputs and every gradient vs fp64 and eager").addColumns(subject, dtype, pass, tensor, rel, limit, ulp, relE, ulpE, verdict);
    }

    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static CorrectnessResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, CorrectnessResult.class, FORMAT); }
}
