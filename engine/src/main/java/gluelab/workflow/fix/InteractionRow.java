package gluelab.workflow.fix;

import java.util.List;

/**
 * One combination of fixes timed as one step with the other candidates in their baseline form:
 * the baseline (none), each fix alone, all but one, and all together. {@code deltaUs} is against
 * the baseline row of the same table. {@code noisy} says why the combination's measurement is not to
 * be trusted as it stands; empty when sound.
 */
public record InteractionRow(String combination, List<String> fixes, double us, double deltaUs, String noisy) {
    public InteractionRow {
        fixes = List.copyOf(fixes);
        noisy = noisy == null ? "" : noisy; // results saved before the column had none
    }
}
