package gluelab.confirm;

import gluelab.ops.Catalogue;
import gluelab.ops.Variant;

/**
 * One comparison to confirm: a catalogue op at a token count, its baseline variant against a
 * candidate, each timed as a whole forward + backward step.
 */
public record Comparison(String op, long tokens, Variant baseline, Variant candidate) {
    public Comparison {
        Catalogue.get(op);
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

    @Override public String toString() { return op + " T=" + tokens + " " + baseline.id() + " -> " + candidate.id(); }
}
