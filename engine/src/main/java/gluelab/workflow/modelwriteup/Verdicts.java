package gluelab.workflow.modelwriteup;

import gluelab.tensor.DType;
import gluelab.workflow.correctness.CheckRow;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.stack.CorrectnessVerdict;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/** Step 08's rows of one candidate folded into a change's verdicts: per dtype, the worst rel L2 and ulp against fp64 and against eager. */
public final class Verdicts {
    /** The repeat row's pass: its errors are the second step against the first, not against a reference. */
    static final String REPEAT = "fwd+bwd x2";

    private Verdicts() {}

    /** The catalogue's: {@code op}'s {@code variant}, its verdict the rows measured against fp64. */
    public static List<CorrectnessVerdict> of(CorrectnessResult result, String op, String variant) {
        return of(result, r -> r.subject().equals(op) && r.candidate().equals(variant), false);
    }

    /** A model fix's: every row of {@code fix} counts for the verdict (a gradient the fix lacks, a second step that differs, an exception). */
    public static List<CorrectnessVerdict> ofFix(CorrectnessResult result, String fix) {
        return of(result, r -> r.candidate().equals(fix), true);
    }

    private static List<CorrectnessVerdict> of(CorrectnessResult result, Predicate<CheckRow> mine, boolean everyRowCounts) {
        List<CorrectnessVerdict> out = new ArrayList<>();
        Map<DType, List<CheckRow>> byDtype = new TreeMap<>();
        Map<DType, Boolean> okByDtype = new TreeMap<>();
        for (CheckRow r : result.rows()) {
            if (!mine.test(r)) continue;
            if (everyRowCounts) okByDtype.merge(r.dtype(), r.ok(), Boolean::logicalAnd);
            if (r.vsFp64() != null && !REPEAT.equals(r.pass())) byDtype.computeIfAbsent(r.dtype(), k -> new ArrayList<>()).add(r);
        }
        byDtype.forEach((dtype, rows) -> {
            boolean ok = everyRowCounts ? okByDtype.getOrDefault(dtype, true) : rows.stream().allMatch(CheckRow::ok);
            out.add(new CorrectnessVerdict("fp64 reference, " + dtype.id(), rows.stream().mapToDouble(r -> r.vsFp64().relL2()).max().orElse(0),
                    rows.stream().mapToDouble(r -> r.vsFp64().maxUlp()).max().orElse(0), ok));
            List<CheckRow> vsEager = rows.stream().filter(r -> r.vsEager() != null).toList();
            if (!vsEager.isEmpty()) out.add(new CorrectnessVerdict("eager " + dtype.id(), vsEager.stream().mapToDouble(r -> r.vsEager().relL2()).max().orElse(0),
                    vsEager.stream().mapToDouble(r -> r.vsEager().maxUlp()).max().orElse(0), ok));
        });
        return out;
    }
}
