package gluelab.workflow.confirm;

import gluelab.ops.Catalogue;
import gluelab.ops.Variant;

/**
 * One comparison to confirm: a catalogue op at a token count, its baseline variant against a
 * candidate, each timed as a whole forward + backward step.
 */
public record Comparison(String op, long tokens, Variant baseline, Variant candidate) {
    public Comparison {
        Catalogue.parse(op);
        if (tokens <= 0) throw new IllegalArgumentException("comparison " + op + ": tokens must be positive, got " + tokens);
        for (Variant v : new Variant[]{baseline, candidate}) {
            if (v == null || !v.onDevices()) throw new IllegalArgumentException("comparison " + op + ": variant " + v + " does not run on gluelab's devices; use one of "
                    + Variant.ON_DEVICES.stream().map(Variant::id).toList());
        }
        if (baseline == candidate) throw new IllegalArgumentException("comparison " + op + ": baseline and candidate are both " + baseline.id());
    }

    /** {@code of("rmsnorm", 4096, "eager", "fused")}. */
    public static Comparison of(String op, long tokens, String baseline, String candidate) {
        return new Comparison(op, tokens, Variant.parse(baseline), Variant.parse(candidate));
    }

    /** A catalogue variant that step 05 tried, against the other variant gluelab's devices run (its baseline). */
    public static Comparison of(gluelab.workflow.fix.Attempt a) {
        if (a.source() != gluelab.workflow.fix.FixSource.CATALOGUE_VARIANT)
            throw new IllegalArgumentException("fix '" + a.name() + "' for " + a.op() + " is a " + a.source().label()
                    + "; fresh-process confirmation times catalogue variants (time regions and kernels in the fix step)");
        Variant candidate = Variant.parse(a.name());
        Variant baseline = Variant.ON_DEVICES.stream().filter(v -> v != candidate).findFirst().orElseThrow();
        return new Comparison(a.op(), a.tokens(), baseline, candidate);
    }

    /** The catalogue variants among step 05's winners, one comparison each (op and token count once). */
    public static java.util.List<Comparison> fromFixes(gluelab.workflow.fix.FixResult fix) {
        return fix.winners().stream().filter(a -> a.source() == gluelab.workflow.fix.FixSource.CATALOGUE_VARIANT).map(Comparison::of).distinct().toList();
    }

    @Override public String toString() { return op + " T=" + tokens + " " + baseline.id() + " -> " + candidate.id(); }
}
