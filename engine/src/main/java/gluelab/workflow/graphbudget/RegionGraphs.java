package gluelab.workflow.graphbudget;

import java.util.List;

/**
 * A region's graphs against the recompile limit: counted from the analyst's region (distinct
 * signatures over call sites x token counts x grad modes) or read from a dynamo log ({@code source}).
 */
public record RegionGraphs(String region, int graphs, int limit, int target, List<String> sites, List<Long> tokens, List<GradMode> modes,
                           String source) {
    public RegionGraphs {
        sites = List.copyOf(sites);
        tokens = List.copyOf(tokens);
        modes = List.copyOf(modes);
    }

    /** ok (at most the target), tight (over the target, within the limit), over (past the limit: fullgraph fails). */
    public String status() {
        if (graphs > limit) return "over the limit";
        if (graphs > target) return "tight";
        return "ok";
    }

    public boolean ok() { return graphs <= target; }
}
