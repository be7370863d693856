package gluelab.kernel.magic;

import gluelab.lab.Gluelab;

import java.util.List;

/** {@code %graphbudget FILE}: the graph budget of a captured dynamo log, rendered in the cell. */
public final class GraphBudgetMagic {
    public static final String HELP = "%graphbudget FILE: graphs per compiled code object vs the recompile limit, recompile reasons, symptoms "
            + "and fixes, from a dynamo log (TORCH_LOGS=recompiles,graph_breaks,guards)";

    private GraphBudgetMagic() {}

    public static gluelab.compilelog.GraphBudget run(List<String> args) {
        if (args.size() != 1) throw new IllegalArgumentException("usage: " + HELP);
        return Gluelab.graphBudget(args.getFirst());
    }
}
