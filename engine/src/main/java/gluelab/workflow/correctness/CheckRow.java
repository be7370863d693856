package gluelab.workflow.correctness;

import gluelab.check.ErrorStats;
import gluelab.tensor.DType;

/**
 * One output or gradient of a candidate in one dtype: against the fp64 reference (rel L2 within
 * {@code tolerance} passes; a repeat row compares a second step with the first, {@code vsFp64.against()} says which) and against eager in the same dtype (max ulp: parity is about 1).
 * A row that could not be checked carries the reason in {@code note} and {@code ok} false only
 * when it is a failure (a missing gradient, a step that changes its outputs).
 */
public record CheckRow(String subject, String candidate, DType dtype, String pass, String tensor, ErrorStats vsFp64, ErrorStats vsEager,
                       double tolerance, boolean ok, String note) {
    public CheckRow {
        note = note == null ? "" : note;
    }

    public String verdict() {
        if (vsFp64 == null) return ok ? "skipped: " + note : "FAIL: " + note;
        String parity = vsEager == null ? "" : String.format(java.util.Locale.ROOT, ", %.1f ulp from eager", vsEager.maxUlp());
        return (ok ? "ok" : "FAIL") + String.format(java.util.Locale.ROOT, " (rel L2 %.2e vs %s, limit %.1e%s)", vsFp64.relL2(), vsFp64.against(), tolerance, parity)
                + (note.isEmpty() ? "" : "; " + note);
    }
}
