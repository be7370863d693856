package gluelab.workflow.graphbudget;

import gluelab.compilelog.BudgetEntry;
import gluelab.compilelog.GraphBudget;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.expr.Glue;
import gluelab.expr.Region;
import gluelab.model.ModelSpec;

import java.util.*;
import java.util.function.Function;

/**
 * Counts the graphs the analyst's regions would compile (workflow step 6, early): every call site x
 * token count x grad mode (with a {@code no_grad} pass unless left out) builds the region and takes
 * its signature (structure, shapes, dtypes; the grad mode is a guard of its own), and the distinct
 * signatures per region are its graphs, against torch's recompile limit (8) and the target (6).
 * Dynamo logs add the code objects they saw ({@link #dynamoLog(GraphBudget)}).
 *
 * <pre>
 * var b = RegionBudget.of(lab.spec(model)).tokens(2048, 4096, 16384)
 *     .site("qk_norm", "q", g -> Examples.qnorm(g, "bf16"))
 *     .site("qk_norm", "k", g -> Examples.qnorm(g.dim("H", spec.kvHeads()), "bf16"));
 * b.count().table()
 * </pre>
 */
public final class RegionBudget {
    /** torch._dynamo.config.recompile_limit's default. */
    public static final int TORCH_RECOMPILE_LIMIT = 8;
    /** Keep headroom: at most 6 of 8. */
    public static final int TARGET = 6;

    private record Site(String region, String site, Function<Glue, Region> build) {}

    private final ModelSpec spec;
    private final List<Long> tokens = new ArrayList<>();
    private final List<Site> sites = new ArrayList<>();
    private final List<GraphBudget> logs = new ArrayList<>();
    private boolean noGradPass = true;
    private int limit = TORCH_RECOMPILE_LIMIT, target = TARGET;

    private RegionBudget(ModelSpec spec) { this.spec = spec; }

    public static RegionBudget of(ModelSpec spec) { return new RegionBudget(spec); }

    public RegionBudget tokens(long... t) {
        for (long n : t) tokens.add(n);
        return this;
    }

    public RegionBudget tokens(List<Long> t) {
        tokens.addAll(t);
        return this;
    }

    /** Counts only grad-enabled calls (a region never called under no_grad). */
    public RegionBudget withoutNoGradPass() { noGradPass = false; return this; }

    public RegionBudget limit(int recompileLimit, int aim) {
        if (recompileLimit < 1 || aim < 1 || aim > recompileLimit)
            throw new IllegalArgumentException("limit must be >= 1 and the target within it, got limit " + recompileLimit + ", target " + aim);
        limit = recompileLimit;
        target = aim;
        return this;
    }

    /** A call site of {@code region}: {@code build} makes the region at one token count (a fresh {@link Glue} per call). */
    public RegionBudget site(String region, String site, Function<Glue, Region> build) {
        if (sites.stream().anyMatch(s -> s.region().equals(region) && s.site().equals(site)))
            throw new IllegalArgumentException("region " + region + " already has a call site named " + site);
        sites.add(new Site(region, site, build));
        return this;
    }

    /** Adds the code objects of a dynamo log (graphs as dynamo counted them). */
    public RegionBudget dynamoLog(GraphBudget budget) {
        logs.add(budget);
        return this;
    }

    /** Adds the code objects of several dynamo logs (e.g. those torch's compiles showed in step 05). */
    public RegionBudget dynamoLogs(List<GraphBudget> budgets) {
        logs.addAll(budgets);
        return this;
    }

    public BudgetResult count() {
        if (sites.isEmpty() && logs.isEmpty()) throw new IllegalArgumentException("nothing to count: add a call site or a dynamo log");
        if (!sites.isEmpty() && tokens.isEmpty()) throw new IllegalArgumentException("give the token counts the regions are called with");
        List<GradMode> modes = noGradPass ? List.of(GradMode.GRAD, GradMode.NO_GRAD) : List.of(GradMode.GRAD);
        List<Long> distinctTokens = tokens.stream().distinct().toList();
        List<Call> calls = new ArrayList<>();
        Map<String, List<Site>> byRegion = new LinkedHashMap<>();
        for (Site s : sites) byRegion.computeIfAbsent(s.region(), k -> new ArrayList<>()).add(s);
        List<RegionGraphs> regions = new ArrayList<>();
        for (var e : byRegion.entrySet()) {
            Set<String> signatures = new LinkedHashSet<>();
            for (Site s : e.getValue()) {
                for (long t : distinctTokens) {
                    Region r;
                    try {
                        r = s.build().apply(Glue.of(spec, t));
                    } catch (RuntimeException ex) {
                        throw new IllegalArgumentException("region " + s.region() + " at call site " + s.site() + ", " + t + " tokens: " + ex.getMessage(), ex);
                    }
                    for (GradMode m : modes) {
                        String sig = r.signature().with("grad_mode=" + m.id()).key();
                        signatures.add(sig);
                        calls.add(new Call(s.region(), s.site(), t, m, sig));
                    }
                }
            }
            regions.add(new RegionGraphs(e.getKey(), signatures.size(), limit, target, e.getValue().stream().map(Site::site).toList(),
                    distinctTokens, modes, "regions of " + spec.name()));
        }
        for (GraphBudget log : logs) {
            for (BudgetEntry b : log.entries()) {
                regions.add(new RegionGraphs(b.codeObject(), b.graphs(), b.limit(), Math.min(target, b.limit()), List.of(), List.of(), List.of(),
                        "dynamo log " + log.source() + (b.limitHit() ? " (limit hit)" : "")));
            }
        }
        return new BudgetResult(BudgetResult.FORMAT, limit, target, regions, calls);
    }

    /** Counts, writes {@code steps/06-graph-budget/budget.json} and the devlog, and marks step 06 done. */
    public BudgetResult record(ExperimentFolder ex) {
        try (var running = ex.running(Step.GRAPH_BUDGET)) {
            BudgetResult r = count();
            var file = ex.stepDir(Step.GRAPH_BUDGET).resolve("budget.json");
            r.save(file);
            for (RegionGraphs g : r.regions()) {
                String line = "graph budget: " + g.region() + " compiles " + g.graphs() + " graphs of " + g.limit() + " (" + g.status() + "; "
                        + (g.sites().isEmpty() ? g.source() : g.sites().size() + " call sites x " + g.tokens().size() + " token counts x " + g.modes().size() + " grad modes") + ")";
                if (g.ok()) ex.devlog().measurement(line);
                else ex.devlog().decision(line + ": over the target of " + g.target() + "; merge call sites, mark shapes dynamic or size the region differently");
            }
            ex.done(Step.GRAPH_BUDGET, List.of(), Map.of("budget", ex.dir().relativize(file).toString()), r.summary());
            return r;
        }
    }

    /** The budget step 06 left in {@code ex}. */
    public static BudgetResult latest(ExperimentFolder ex) { return BudgetResult.load(ex.file(Step.GRAPH_BUDGET, "budget")); }
}
