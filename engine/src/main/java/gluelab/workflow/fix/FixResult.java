package gluelab.workflow.fix;

import gluelab.units.TimeColumn;
import gluelab.expr.workbench.RegionBench;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.*;

/**
 * Step 05's outcome: every fix tried per candidate (cheapest first), the interaction table (each
 * fix alone, all but one, all together, against the baseline), what the interactions showed, and
 * region sizing A/B/C when asked, and the graph budgets dynamo's logs showed when torch compiled
 * the candidates (for step 06).
 */
public record FixResult(int format, List<String> candidates, List<Attempt> attempts, List<InteractionRow> interactions, List<String> notes,
                        List<RegionBench.Row> sizing, String benchRecord, List<gluelab.compilelog.GraphBudget> torchBudgets) {
    public static final int FORMAT = 1;

    public FixResult {
        candidates = List.copyOf(candidates);
        attempts = List.copyOf(attempts);
        interactions = List.copyOf(interactions);
        notes = List.copyOf(notes);
        sizing = List.copyOf(sizing);
        torchBudgets = torchBudgets == null ? List.of() : List.copyOf(torchBudgets);
    }

    /** Per candidate, the fastest measured fix that wins alone. */
    public List<Attempt> winners() {
        Map<String, Attempt> best = new LinkedHashMap<>();
        for (Attempt a : attempts) {
            if (!a.win()) continue;
            String key = a.op() + " " + a.pass() + " " + a.tokens();
            Attempt b = best.get(key);
            if (b == null || a.variantUs() < b.variantUs()) best.put(key, a);
        }
        return List.copyOf(best.values());
    }

    public String summary() {
        long measured = attempts.stream().filter(Attempt::measured).count(), skipped = attempts.stream().filter(a -> a.status() == Attempt.Status.SKIPPED).count();
        return candidates.size() + " candidates, " + attempts.size() + " fixes tried (" + measured + " measured, " + skipped + " skipped), "
                + winners().size() + " win" + (winners().isEmpty() ? "" : ": " + winners().stream().map(a -> a.op() + " " + a.pass() + " " + a.name()).toList());
    }

    public Table table() {
        StringColumn cand = StringColumn.create("candidate"), source = StringColumn.create("source"), name = StringColumn.create("fix"),
                verdict = StringColumn.create("verdict");
        TimeColumn base = new TimeColumn("baseline"), var = new TimeColumn("fix"), ideal = new TimeColumn("ideal");
        DoubleColumn delta = DoubleColumn.create("delta_%");
        for (Attempt a : attempts) {
            cand.append(a.op() + " " + a.pass() + " T=" + a.tokens());
            source.append(a.source().label());
            name.append(a.name());
            base.append(a.baselineUs());
            var.append(a.variantUs());
            ideal.append(a.idealUs());
            delta.append(round(a.deltaPercent()));
            verdict.append(a.describe());
        }
        return Table.create("fixes tried, cheapest first").addColumns(cand, source, name, base.column(), var.column(), ideal.column(), delta, verdict);
    }

    /** Each fix alone and together, against the baseline; empty when fewer than two fixes could be combined. */
    public Table interactionTable() {
        StringColumn comb = StringColumn.create("combination");
        IntColumn n = IntColumn.create("fixes");
        TimeColumn us = new TimeColumn("step"), delta = new TimeColumn("delta");
        DoubleColumn pct = DoubleColumn.create("delta_%");
        double baseline = interactions.isEmpty() ? Double.NaN : interactions.getFirst().us();
        for (InteractionRow r : interactions) {
            comb.append(r.combination());
            n.append(r.fixes().size());
            us.append(r.us());
            delta.append(r.deltaUs());
            pct.append(round(100 * r.deltaUs() / baseline));
        }
        return Table.create("interactions: fixes alone and together").addColumns(comb, n, us.column(), delta.column(), pct);
    }

    public Table sizingTable() { return RegionBench.table("region sizing", sizing); }

    private static double round(double v) { return Double.isNaN(v) ? Double.NaN : Math.round(v * 100) / 100.0; }

    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static FixResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, FixResult.class, FORMAT); }
}
