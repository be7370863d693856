package gluelab.compilelog;

import java.util.List;

/** One code object against the recompile limit: graphs held, recompilations by reason, headroom left. */
public record BudgetEntry(String codeObject, int graphs, int recompiles, int limit, boolean limitHit, List<ReasonGroup> reasons) {
    public BudgetEntry {
        reasons = List.copyOf(reasons);
    }

    /** Graphs that can still be added before dynamo stops compiling this code object (0 once hit). */
    public int headroom() { return limitHit ? 0 : Math.max(0, limit - graphs); }

    public String status() {
        if (limitHit) return "limit hit";
        return headroom() <= 2 ? "near limit" : "ok";
    }
}
