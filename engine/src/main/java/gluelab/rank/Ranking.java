package gluelab.rank;

import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.Rounding;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.util.Comparator;
import java.util.List;

/**
 * Candidates sorted by score, with the stop rule: an item whose gap is under {@code stopFraction}
 * of the layer is not worth a change (unless it fixes correctness or removes a sync), and the
 * effort stops when the whole remaining gap is under it.
 */
public final class Ranking {
    /** Gaps under 1% of the layer are not worth a change. */
    public static final double DEFAULT_STOP_FRACTION = 0.01;

    private final List<Candidate> ranked;
    private final double stopFraction;

    private Ranking(List<Candidate> ranked, double stopFraction) {
        this.ranked = ranked;
        this.stopFraction = stopFraction;
    }

    public static Ranking of(List<Candidate> candidates, double stopFraction) {
        if (!(stopFraction > 0 && stopFraction < 1)) throw new IllegalArgumentException("stop fraction must be in (0, 1), got " + stopFraction);
        List<Candidate> sorted = candidates.stream()
                .sorted(Comparator.comparingDouble(Candidate::score).reversed().thenComparing(Candidate::op)).toList();
        return new Ranking(sorted, stopFraction);
    }

    public List<Candidate> ranked() { return ranked; }

    public double stopFraction() { return stopFraction; }

    public boolean worthFixing(Candidate c) { return c.gapShare() >= stopFraction; }

    public List<Candidate> worthFixing() { return ranked.stream().filter(this::worthFixing).toList(); }

    /**
     * FIX for a gap over the stop rule measured on a sound row; REMEASURE when the row behind it is
     * noisy ({@link Candidate#caveat()} says why). Both stay in {@link #worthFixing()}: the fix step
     * measures them again side by side with its fused form, which settles a noisy one.
     */
    public Verdict verdict(Candidate c) {
        if (!worthFixing(c)) return Verdict.BELOW_STOP_RULE;
        return c.caveat().isEmpty() ? Verdict.FIX : Verdict.REMEASURE;
    }

    /** The candidates whose gap is worth a change and whose measurement is sound. */
    public List<Candidate> toFix() { return ranked.stream().filter(c -> verdict(c) == Verdict.FIX).toList(); }

    /** The candidates whose gap is worth a change but whose measurement is noisy. */
    public List<Candidate> toRemeasure() { return ranked.stream().filter(c -> verdict(c) == Verdict.REMEASURE).toList(); }

    /** "remeasure (n=1 < 10, noise unknown)", "fix" or "below stop rule". */
    public String verdictText(Candidate c) {
        Verdict v = verdict(c);
        return v == Verdict.REMEASURE ? v.id() + " (" + c.caveat() + ")" : v.id();
    }

    /** True when the summed remaining gap is under the stop fraction of the layer. */
    public boolean stopReached() {
        double gap = 0, layer = ranked.isEmpty() ? 1 : ranked.getFirst().layerUs();
        for (Candidate c : ranked) gap += c.gapUs();
        return gap / layer < stopFraction;
    }

    private static final gluelab.table.Column RATIO = gluelab.table.Column.ratio("ratio", "measured over ideal"),
            SCORE = gluelab.table.Column.number("score", "the gap (us) x the share of the layer: what orders the ranking").rounded(Rounding.places(2));

    public Table table() {
        var t = DataTable.builder("ranked candidates", Columns.OP, Columns.PASS, Columns.VARIANT, Columns.TOKENS, Columns.COUNT, Columns.MEASURED,
                Columns.IDEAL, Columns.GAP, RATIO, Columns.SHARE_PCT, SCORE, Columns.VERDICT, Columns.NOISY);
        for (Candidate c : ranked) {
            t.row(c.op().name(), c.pass().id(), c.variant().id(), c.tokens(), c.count(), c.measuredUs(), c.idealUs(), c.gapUs(), c.ratio(),
                    100 * c.share(), c.score(), verdictText(c), c.caveat());
        }
        return TableFormat.tablesaw(t.build().withoutEmpty(Columns.NOISY));
    }

    static double round(double v, int places) { return gluelab.units.Numbers.places(v, places); }
}
