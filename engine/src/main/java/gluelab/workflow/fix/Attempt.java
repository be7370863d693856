package gluelab.workflow.fix;

import gluelab.ops.Skip;

import java.util.Locale;
import java.util.Optional;

/**
 * One fix tried for one candidate (an op's pass at a token count): its time against the baseline
 * (the op's eager form, or a rewrite's "before"), the floor, and whether it was measured, skipped
 * (with the reason: no GPU, no torch.compile) or failed (with the error). {@code noisy} says why
 * the baseline's or the fix's measurement is not to be trusted as it stands; empty when both are sound.
 */
public record Attempt(String op, String pass, long tokens, FixSource source, String name, double baselineUs, double variantUs, double idealUs,
                      Status status, String reason, String noisy) {
    public enum Status { MEASURED, SKIPPED, FAILED }

    public Attempt {
        reason = reason == null ? "" : reason;
        noisy = noisy == null ? "" : noisy; // results saved before the column had none
    }

    /** A measured fix; {@code baselineNoisy} and {@code fixedNoisy} are each measurement's {@code noisy()}. */
    static Attempt measured(String op, String pass, long tokens, FixSource source, String name, double baselineUs, double variantUs, double idealUs,
                            String reason, Optional<String> baselineNoisy, Optional<String> fixedNoisy) {
        return new Attempt(op, pass, tokens, source, name, baselineUs, variantUs, idealUs, Status.MEASURED, reason, noisy(baselineNoisy, fixedNoisy));
    }

    /** "baseline: n=3 < 10; fixed: noise 4.1% > 2.0%", naming only the sides that are noisy. */
    static String noisy(Optional<String> baseline, Optional<String> fixed) {
        java.util.List<String> why = new java.util.ArrayList<>();
        baseline.filter(w -> !w.isBlank()).ifPresent(w -> why.add("baseline: " + w));
        fixed.filter(w -> !w.isBlank()).ifPresent(w -> why.add("fixed: " + w));
        return String.join("; ", why);
    }

    static Attempt skipped(String op, String pass, long tokens, FixSource source, String name, String reason) {
        return new Attempt(op, pass, tokens, source, name, Double.NaN, Double.NaN, Double.NaN, Status.SKIPPED, reason, "");
    }

    static Attempt failed(String op, String pass, long tokens, FixSource source, String name, String reason) {
        return new Attempt(op, pass, tokens, source, name, Double.NaN, Double.NaN, Double.NaN, Status.FAILED, reason, "");
    }

    public boolean measured() { return status == Status.MEASURED; }

    /** Why the fix was not measured, where it was skipped (a failure is not a skip: it ran and broke). */
    public Optional<Skip> skip() {
        return status == Status.SKIPPED ? Optional.of(new Skip(op + " " + pass + " at " + tokens + " tokens, " + name, reason.isBlank() ? "no reason recorded" : reason)) : Optional.empty();
    }

    /** Variant vs baseline in percent (negative = faster). */
    public double deltaPercent() { return measured() ? 100 * (variantUs / baselineUs - 1) : Double.NaN; }

    /** Faster than the baseline by more than 1%. */
    public boolean win() { return measured() && variantUs < baselineUs * 0.99; }

    public String describe() {
        if (status == Status.SKIPPED) return "skipped: " + skip().orElseThrow().reason();
        if (status == Status.FAILED) return "FAILED: " + reason;
        double r = baselineUs / variantUs;
        return (r >= 1 ? String.format(Locale.ROOT, "%.2fx faster", r) : String.format(Locale.ROOT, "%.2fx slower", 1 / r))
                + String.format(Locale.ROOT, " (%.1f vs %.1f us, ideal %.1f)", variantUs, baselineUs, idealUs);
    }
}
