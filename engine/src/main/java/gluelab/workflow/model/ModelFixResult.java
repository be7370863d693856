package gluelab.workflow.model;

import gluelab.timing.Noise;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;
import gluelab.units.Numbers;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Step 05 on the analyst's model: each fix against the model as written (fwd+bwd, cheapest first, at
 * every planned token count), the interaction table (each alone, all but one, all together), region
 * sizing A / B / C when asked, the catalogue's best known kernel for a fix's op as a reference row, and
 * every timing the harness returned (raw samples, compile accounting). Rows of a token count that
 * could not be timed are FAILED with the reason; the rows measured before stay.
 */
public record ModelFixResult(int format, String model, List<ModelFix> fixes, List<FixRow> rows, List<Combination> interactions,
                             List<SizingRow> sizing, List<ReferenceRow> references, List<String> notes, List<ModelVariantTiming> timings) {
    public static final int FORMAT = 1;

    public ModelFixResult {
        fixes = List.copyOf(fixes);
        rows = List.copyOf(rows);
        interactions = List.copyOf(interactions);
        sizing = List.copyOf(sizing);
        references = references == null ? List.of() : List.copyOf(references);
        notes = List.copyOf(notes);
        timings = List.copyOf(timings);
    }

    public enum Status { MEASURED, FAILED }

    /**
     * One fix alone at one token count. {@code caveat}: why its numbers are weaker than they look (a
     * noisy or timed-out measurement, a difference inside the noise), "" when nothing weakens them.
     */
    public record FixRow(String fix, ModelFix.Kind kind, long tokens, Status status, double baselineUs, double fixedUs, double compileSeconds,
                         String caveat, String reason) {
        public boolean measured() { return status == Status.MEASURED; }

        /** Fixed over baseline, minus one, in percent (negative is faster). */
        public double deltaPercent() { return measured() ? 100 * (fixedUs / baselineUs - 1) : Double.NaN; }

        /** Faster than the model as written by more than 1%, and not inside the noise. */
        public boolean win() { return measured() && fixedUs < baselineUs * 0.99 && !caveat.contains(Noise.WITHIN); }

        public String describe() {
            if (!measured()) return "FAILED: " + reason;
            double r = baselineUs / fixedUs;
            return (r >= 1 ? String.format(Locale.ROOT, "%.2fx faster", r) : String.format(Locale.ROOT, "%.2fx slower", 1 / r))
                    + String.format(Locale.ROOT, " (%.1f vs %.1f us)", fixedUs, baselineUs) + (caveat.isEmpty() ? "" : "; " + caveat);
        }
    }

    /** A combination of fixes timed as one variant at one token count, against the model as written. */
    public record Combination(long tokens, String label, List<String> fixes, double us, double deltaUs, String caveat, String reason) {
        public Combination {
            fixes = List.copyOf(fixes);
        }
    }

    /** Region sizing at one token count: A alone (B eager), A and B as two regions, C (one region around both). */
    public record SizingRow(long tokens, String arm, List<String> regions, double us, double deltaUs, String caveat, String reason) {
        public SizingRow {
            regions = List.copyOf(regions);
        }
    }

    /**
     * The catalogue's fused kernel for the op a fix addresses, timed fwd+bwd on the device as the op
     * alone (not inside the model): the best known kernel to compare the fix's saving with.
     */
    public record ReferenceRow(String fix, String op, long tokens, String kernel, double eagerUs, double kernelUs, String caveat, String reason) {}

    public static final String WITHIN_NOISE = "within the noise";

    /**
     * Every kind among the fix's parts, in the fix's order: "swap + regions" for a swap compiled as a region, as the write-up's
     * Problem line names them; the row's own kind (the costliest part, where the fix sits in "cheapest first") when the fix is not listed.
     */
    public String kinds(FixRow r) {
        return fixes.stream().filter(f -> f.name().equals(r.fix())).findFirst()
                .map(f -> f.parts().stream().map(p -> p.kind().name().toLowerCase(Locale.ROOT)).distinct().collect(java.util.stream.Collectors.joining(" + ")))
                .orElse(r.kind().name().toLowerCase(Locale.ROOT));
    }

    /** The fixes that win alone at some token count. */
    public List<FixRow> winners() { return rows.stream().filter(FixRow::win).toList(); }

    /** The token counts at which step 05 measured at least one fix, in the order it timed them. */
    public List<Long> measuredTokens() { return rows.stream().filter(FixRow::measured).map(FixRow::tokens).distinct().toList(); }

    /**
     * Each of {@code planned} that step 05 measured no fix at, with why: the reason its rows failed, or
     * that the step stopped before it (no rows).
     */
    public java.util.Map<Long, String> notMeasured(List<Long> planned) {
        java.util.Map<Long, String> out = new java.util.LinkedHashMap<>();
        List<Long> measured = measuredTokens();
        for (long t : planned) {
            if (measured.contains(t)) continue;
            out.put(t, rows.stream().filter(r -> r.tokens() == t).map(FixRow::reason).filter(r -> !r.isEmpty()).findFirst()
                    .orElse("step 05 stopped before it timed this token count"));
        }
        return out;
    }

    public ModelFixResult withReferences(List<ReferenceRow> refs) {
        return new ModelFixResult(format, model, fixes, rows, interactions, sizing, refs, notes, timings);
    }

    /** This result with {@code note} after its notes. */
    public ModelFixResult withNote(String note) {
        List<String> all = new ArrayList<>(notes);
        all.add(note);
        return new ModelFixResult(format, model, fixes, rows, interactions, sizing, references, all, timings);
    }

    public String summary() {
        long measured = rows.stream().filter(FixRow::measured).count();
        return Numbers.count(fixes.size(), "fix", "fixes") + " x " + Numbers.count(rows.stream().map(FixRow::tokens).distinct().count(), "token count") + ": "
                + measured + " of " + Numbers.count(rows.size(), "row") + " measured, " + Numbers.count(winners().size(), "win")
                + (winners().isEmpty() ? "" : ": " + winners().stream().map(r -> r.fix() + " T=" + r.tokens()).toList());
    }

    public String text() {
        StringBuilder sb = new StringBuilder("fixes of " + model + ", fwd+bwd against the model as written, cheapest first\n");
        int fixWidth = Math.max(18, rows.stream().mapToInt(r -> r.fix().length()).max().orElse(0));
        int kindWidth = Math.max(9, rows.stream().mapToInt(r -> kinds(r).length()).max().orElse(0));
        String head = "  %-" + fixWidth + "s %-" + kindWidth + "s %7s %11s %11s %9s %9s  %s%n", line = "  %-" + fixWidth + "s %-" + kindWidth + "s %7d %11s %11s %9s %9.2f  %s%n";
        sb.append(String.format(Locale.ROOT, head, "fix", "kind", "tokens", "baseline_us", "fixed_us", "delta", "compile_s", "verdict"));
        for (FixRow r : rows) {
            sb.append(String.format(Locale.ROOT, line, r.fix(), kinds(r), r.tokens(),
                    num(r.baselineUs()), num(r.fixedUs()), r.measured() ? String.format(Locale.ROOT, "%+.1f%%", r.deltaPercent()) : "-", r.compileSeconds(), r.describe()));
        }
        if (!interactions.isEmpty()) {
            sb.append("interactions: fixes alone and together (one variant each, timed with the others above)\n");
            for (Combination c : interactions) {
                sb.append(String.format(Locale.ROOT, "  %7d  %-32s %11s %11s  %s%n", c.tokens(), c.label(), num(c.us()),
                        Double.isNaN(c.deltaUs()) ? "-" : String.format(Locale.ROOT, "%+.1f us", c.deltaUs()),
                        !c.reason().isEmpty() ? "FAILED: " + c.reason() : c.caveat()));
            }
        }
        if (!sizing.isEmpty()) {
            sb.append("region sizing: A alone (B eager), A and B as two regions, C one region around both\n");
            for (SizingRow s : sizing) {
                sb.append(String.format(Locale.ROOT, "  %7d  %-4s %-50s %11s %11s  %s%n", s.tokens(), s.arm(), String.join(",", s.regions()), num(s.us()),
                        Double.isNaN(s.deltaUs()) ? "-" : String.format(Locale.ROOT, "%+.1f us", s.deltaUs()), !s.reason().isEmpty() ? "FAILED: " + s.reason() : s.caveat()));
            }
        }
        for (ReferenceRow r : references) {
            sb.append(String.format(Locale.ROOT, "  reference (best known kernel, the op alone on the device, not in the model): %s -> catalogue %s %s T=%d: %s%n",
                    r.fix(), r.op(), r.kernel(), r.tokens(), !r.reason().isEmpty() ? "not measured: " + r.reason()
                            : String.format(Locale.ROOT, "%.1f vs eager %.1f us", r.kernelUs(), r.eagerUs()) + (r.caveat().isEmpty() ? "" : "; " + r.caveat())));
        }
        notes.forEach(n -> sb.append("  note: ").append(n).append('\n'));
        return sb.toString();
    }

    private static String num(double us) { return Double.isNaN(us) ? "-" : String.format(Locale.ROOT, "%.1f", us); }

    /** What weakens a comparison of {@code a} with {@code base}: either's stop rule, or a difference inside their noise. */
    static String caveat(ModelVariantTiming.Row a, ModelVariantTiming.Row base) {
        List<String> why = new ArrayList<>();
        a.run().noisy().ifPresent(n -> why.add("noisy: " + n));
        base.run().noisy().ifPresent(n -> why.add("baseline noisy: " + n));
        double noise = Noise.of(a.run().noise(), base.run().noise()), change = a.us() / base.us() - 1;
        if (Noise.within(change, noise)) why.add(Noise.caveat(change, noise));
        return String.join("; ", why);
    }
}
