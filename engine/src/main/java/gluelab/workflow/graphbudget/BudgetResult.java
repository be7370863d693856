package gluelab.workflow.graphbudget;

import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
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

    private static final Column REGION = Column.text("region", "the region compiled"), GRAPHS = Column.count("graphs", "graphs dynamo compiles for it"),
            LIMIT = Column.count("limit", "the recompile limit"), TARGET = Column.count("target", "the aim: graphs at most this"),
            STATUS = Column.text("status", "ok, tight (over the aim) or over (past the limit)"),
            SITES = Column.text("call sites", "where the region is called"), TOKEN_COUNTS = Column.text("token counts", "the token counts it is called with"),
            MODES = Column.text("grad modes", "the grad modes it is called under"), SOURCE = Column.text("source", "where the calls came from"),
            SITE = Column.text("site", "the call site"), MODE = Column.text("grad mode", "the call's grad mode"),
            SIGNATURE = Column.text("signature", "the signature the call compiles");

    /** One row per region: graphs, limit, target, status, and what multiplied them. */
    public Table table() {
        var t = DataTable.builder("graph budget (limit " + limit + ", aim <= " + target + ")", REGION, GRAPHS, LIMIT, TARGET, STATUS, SITES, TOKEN_COUNTS,
                MODES, SOURCE);
        for (RegionGraphs r : regions) {
            t.row(r.region(), r.graphs(), r.limit(), r.target(), r.status(), String.join(", ", r.sites()), r.tokens().toString(),
                    String.join(", ", r.modes().stream().map(GradMode::id).toList()), r.source());
        }
        return TableFormat.tablesaw(t.build());
    }

    /** Every call and the signature it compiles (the same signature twice is one graph). */
    public Table callTable() {
        var t = DataTable.builder("calls", REGION, SITE, Columns.TOKENS, MODE, SIGNATURE);
        for (Call c : calls) t.row(c.region(), c.site(), c.tokens(), c.mode().id(), c.signature());
        return TableFormat.tablesaw(t.build());
    }

    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static BudgetResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, BudgetResult.class, FORMAT); }
}
