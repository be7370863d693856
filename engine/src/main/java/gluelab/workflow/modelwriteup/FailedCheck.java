package gluelab.workflow.modelwriteup;

import gluelab.tensor.DType;
import gluelab.workflow.correctness.CheckRow;
import gluelab.workflow.correctness.CorrectnessResult;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A fix that step 08 found wrong, as one finding: how many of its rows fail (each an output or
 * gradient in one dtype, a missing tensor, an exception, or the repeat), in which dtypes, and the
 * worst of them. A row that fails only for want of an fp64 reference measured nothing wrong, so it
 * does not make a fix wrong.
 */
record FailedCheck(String fix, int failed, int checked, List<DType> dtypes, CheckRow worst) {
    /** Step 08's candidate name for the model as written (ModelCheckStep's), which is no fix. */
    static final String EAGER = "eager";
    /** How ModelCheckStep opens the note of a tensor that had no fp64 copy to compare with. */
    static final String NO_REFERENCE = "no fp64 reference";

    FailedCheck {
        dtypes = List.copyOf(dtypes);
    }

    /** The fixes step 08 checked, in its order (the model as written is none). */
    static List<String> fixes(CorrectnessResult r) {
        return r.rows().stream().map(CheckRow::candidate).filter(c -> !c.equals(EAGER)).distinct().toList();
    }

    /** Per fix with a wrong row, in step 08's order, its failure. */
    static Map<String, FailedCheck> of(CorrectnessResult r) {
        Map<String, FailedCheck> out = new LinkedHashMap<>();
        for (String fix : fixes(r)) {
            List<CheckRow> mine = r.rows().stream().filter(x -> x.candidate().equals(fix)).toList();
            List<CheckRow> wrong = mine.stream().filter(FailedCheck::wrong).toList();
            if (wrong.isEmpty()) continue;
            List<DType> dtypes = wrong.stream().map(CheckRow::dtype).distinct().sorted().toList();
            // A row that compared nothing (an exception, a missing gradient) or must match exactly (the repeat) is worse than any ratio.
            CheckRow worst = wrong.stream().max(Comparator.comparingDouble(FailedCheck::overLimit)).orElseThrow();
            out.put(fix, new FailedCheck(fix, wrong.size(), mine.size(), dtypes, worst));
        }
        return out;
    }

    static boolean wrong(CheckRow r) {
        return !r.ok() && !(r.vsFp64() == null && r.note().startsWith(NO_REFERENCE));
    }

    private static double overLimit(CheckRow r) {
        return r.vsFp64() == null || r.tolerance() <= 0 ? Double.POSITIVE_INFINITY : r.vsFp64().relL2() / r.tolerance();
    }

    /** "10 of its 42 rows in step 08 fail (fp32); worst fp32 grad layers.0.attention.wk.weight: FAIL (rel L2 1.90e-03 vs fp64, limit 1.0e-05, ...)". */
    String describe() {
        List<String> names = new ArrayList<>();
        for (DType d : dtypes) names.add(d.id());
        String what = worst.tensor().isEmpty() ? worst.pass() : worst.tensor();
        return String.format(Locale.ROOT, "%d of its %d rows in step 08 fail (%s); worst %s%s: %s", failed, checked, String.join(", ", names),
                worst.dtype().id(), what.isEmpty() ? "" : " " + what, worst.verdict());
    }
}
