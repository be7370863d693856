package gluelab.workflow.feedback;

import gluelab.units.Micros;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * One row of an interaction table (workflow step 5: fixes tried alone and together): the fixes
 * applied (none: the baseline), the token count, and the measured time.
 */
public record Interaction(Set<String> fixes, long tokens, Micros time) {
    public Interaction {
        if (fixes == null) throw new IllegalArgumentException("an interaction row needs its fixes (empty for the baseline)");
        fixes = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(fixes));
        if (tokens <= 0) throw new IllegalArgumentException("tokens must be > 0, got " + tokens);
        if (time == null) throw new IllegalArgumentException("an interaction row needs its time");
    }

    public static Interaction of(List<String> fixes, long tokens, double us) { return new Interaction(Set.copyOf(fixes), tokens, Micros.of(us)); }

    /** "baseline" or "A + B". */
    public String label() { return fixes.isEmpty() ? "baseline" : String.join(" + ", fixes); }
}
