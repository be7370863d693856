package gluelab.workflow.stack;

import java.util.Locale;

/**
 * One correctness verdict of a change (workflow step 8): the output and every gradient compared
 * {@code against} a reference (eager bf16, eager fp32, fp64), the worst rel L2 and max ulp, pass or not.
 */
public record CorrectnessVerdict(String against, double relL2, double maxUlp, boolean pass) {
    public CorrectnessVerdict {
        if (against == null || against.isBlank()) throw new IllegalArgumentException("a correctness verdict needs what it compared against (against)");
        if (!(relL2 >= 0) || Double.isInfinite(relL2)) throw new IllegalArgumentException("relL2 must be a finite number >= 0, got " + relL2);
        if (!(maxUlp >= 0) || Double.isInfinite(maxUlp)) throw new IllegalArgumentException("maxUlp must be a finite number >= 0, got " + maxUlp);
    }

    /** "vs eager bf16: rel L2 1.2e-03, max 1 ulp, pass". */
    public String describe() {
        return String.format(Locale.ROOT, "vs %s: rel L2 %.1e, max %s ulp, %s", against, relL2,
                maxUlp == Math.rint(maxUlp) ? String.format(Locale.ROOT, "%.0f", maxUlp) : String.format(Locale.ROOT, "%.1f", maxUlp),
                pass ? "pass" : "FAIL");
    }
}
