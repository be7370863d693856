package gluelab.workflow.fix;

import gluelab.expr.workbench.RegionBench;
import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.Rounding;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.*;

/**
 * Step 05's outcome: every fix tried per candidate (cheapest first), the interaction table (each
 * fix alone, all but one, all together, against the baseline), what the interactions showed, and
 * region sizing A/B/C when asked, and the graph budgets dynamo's logs showed when torch compiled
 * the candidates (for step 06). {@code device} is the name of the device it was measured on, for
 * its chart's title (null in results saved before it was kept).
 */
public record FixResult(int format, List<String> candidates, List<Attempt> attempts, List<InteractionRow> interactions, List<String> notes,
                        List<RegionBench.Row> sizing, String benchRecord, List<gluelab.compilelog.GraphBudget> torchBudgets, String device) {
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

    private static final Column CANDIDATE = Column.text("candidate", "the ranking's candidate: op, pass, tokens"),
            SOURCE = Column.text("source", "where the fix came from: catalogue, region, rewrite, %%cuda, torch"),
            FIX = Column.text("fix", "the fix tried"),
            BASELINE = Column.time("baseline", "the candidate in its baseline form"), FIXED = Column.time("fixed", "the candidate with the fix"),
            DELTA_PCT = Column.percent("delta_pct", "fixed over baseline, minus one, x100 (negative is faster)").rounded(Rounding.places(2)),
            COMBINATION = Column.text("combination", "the fixes applied together, the others in their baseline form"),
            FIXES = Column.count("fixes", "how many fixes the combination applies"),
            STEP = Column.time("step", "the combination timed as one step"), DELTA = Column.time("delta", "the step minus the baseline step");

    public Table table() {
        var t = DataTable.builder("fixes tried, cheapest first", CANDIDATE, SOURCE, FIX, BASELINE, FIXED, Columns.IDEAL, DELTA_PCT, Columns.VERDICT,
                Columns.NOISY);
        for (Attempt a : attempts) {
            t.row(a.op() + " " + a.pass() + " T=" + a.tokens(), a.source().label(), a.name(), a.baselineUs(), a.variantUs(), a.idealUs(), a.deltaPercent(),
                    a.describe(), a.noisy());
        }
        return TableFormat.tablesaw(t.build().withoutEmpty(Columns.NOISY));
    }

    /** Each fix alone and together, against the baseline; empty when fewer than two fixes could be combined. */
    public Table interactionTable() {
        var t = DataTable.builder("interactions: fixes alone and together", COMBINATION, FIXES, STEP, DELTA, DELTA_PCT, Columns.NOISY);
        double baseline = interactions.isEmpty() ? Double.NaN : interactions.getFirst().us();
        for (InteractionRow r : interactions) t.row(r.combination(), r.fixes().size(), r.us(), r.deltaUs(), 100 * r.deltaUs() / baseline, r.noisy());
        return TableFormat.tablesaw(t.build().withoutEmpty(Columns.NOISY));
    }

    public Table sizingTable() { return RegionBench.table("region sizing", sizing); }


    public void save(Path file) { gluelab.workflow.experiment.StepResults.save(file, this); }

    public static FixResult load(Path file) { return gluelab.workflow.experiment.StepResults.load(file, FixResult.class, FORMAT); }
}
