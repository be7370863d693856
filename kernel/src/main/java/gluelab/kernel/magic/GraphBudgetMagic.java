package gluelab.kernel.magic;

import gluelab.lab.Gluelab;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

import java.util.List;

/** {@code %graphbudget FILE}: the graph budget of a captured dynamo log, rendered in the cell. */
public final class GraphBudgetMagic implements Magic, LineMagic<Object, BaseKernel> {
    @Override public String name() { return "graphbudget"; }

    @Override public String help() {
        return "%graphbudget FILE: graphs per compiled code object vs the recompile limit, recompile reasons, symptoms "
                + "and fixes, from a dynamo log (TORCH_LOGS=recompiles,graph_breaks,guards)";
    }

    @Override public Object eval(BaseKernel kernel, List<String> args) {
        if (args.size() != 1) throw new IllegalArgumentException("usage: " + help());
        return Gluelab.graphBudget(args.getFirst());
    }
}
