package gluelab.workflow.fix;

import java.util.List;

/**
 * One combination of fixes timed as one step with the other candidates in their baseline form:
 * the baseline (none), each fix alone, all but one, and all together. {@code deltaUs} is against
 * the baseline row of the same table.
 */
public record InteractionRow(String combination, List<String> fixes, double us, double deltaUs) {
    public InteractionRow {
        fixes = List.copyOf(fixes);
    }
}
