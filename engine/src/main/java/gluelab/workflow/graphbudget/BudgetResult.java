package gluelab.workflow.graphbudget;

import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Step 06's graph budget: every region's graphs against the limit, and every call that makes a signature. */
public record BudgetResult(int format, int limit, int target, List<RegionGraphs> regions, List<Call> calls) {
    public static final int FORMAT = 1;

    public BudgetResult {
        regions = List.copyOf(regions);
        calls = List.copyOf(calls);
    }

    public Optional<RegionGraphs> region(String name) { return regions.stream().filter(r -> r.region().equals(name)).findFirst(); }

    /** Regions over the target (tight or over the limit). */
    public List<RegionGraphs> overTarget() { return regions.stream().filter(r -> !r.ok()).toList(); }

    public String summary() {
        return String.join("; ", regions.stream().map(r -> r.region() + " " + r.graphs() + " of " + r.limit() + " (" + r.status() + ")").toList());
    }

    /** One row per region: graphs, limit, target, status, and what multiplied them. */
    public Table table() {
        StringColumn region = StringColumn.create("region"), status = StringColumn.create("status"), sites = StringColumn.create("call sites"),
                tokens = StringColumn.create("token counts"), modes = StringColumn.create("grad modes"), source = StringColumn.create("source");
        IntColumn graphs = IntColumn.create("graphs"), limit = IntColumn.create("limit"), target = IntColumn.create("target");
        for (RegionGraphs r : regions) {
            region.append(r.region());
            graphs.append(r.graphs());
            limit.append(r.limit());
            target.append(r.target());
            status.append(r.status());
            sites.append(String.join(", ", r.sites()));
            tokens.append(r.tokens().toString());
            modes.append(String.join(", ", r.modes().stream().map(GradMode::id).toList()));
            source.append(r.source());
        }
        return Table.create("graph budget (limit " + limit + ", aim <= " + target + ")").addColumns(region, graphs, limit, target, status, sites, tokens, modes, source);
    }

    /** Every call and the signature it compiles (the same signature twice is one graph). */
    public Table callTable() {
        StringColumn region = StringColumn.create("region"), site = StringColumn.create("site"), mode = StringColumn.create("grad mode"),
                sig = StringColumn.create("signature");
        IntColumn tokens = IntColumn.create("tokens");
        for (Call c : calls) {
            region.append(c.region());
            site.append(c.site());
            tokens.append((int) c.tokens());
            mode.append(c.mode().id());
            sig.append(c.signature());
        }
        return Table.create("calls").addColumns(region, site, tokens, mode, sig);
    }

    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static BudgetResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, BudgetResult.class, FORMAT); }
}
