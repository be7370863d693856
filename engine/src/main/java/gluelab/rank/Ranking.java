package gluelab.rank;

import gluelab.units.TimeColumn;
import tech.tablesaw.api.*;

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

    public Table table() {
        Table t = Table.create("ranked candidates");
        StringColumn op = StringColumn.create("op"), pass = StringColumn.create("pass"), variant = StringColumn.create("variant");
        IntColumn tokens = IntColumn.create("tokens"), count = IntColumn.create("count");
        TimeColumn measured = new TimeColumn("measured"), ideal = new TimeColumn("ideal"), gap = new TimeColumn("gap");
        DoubleColumn ratio = DoubleColumn.create("ratio"),
                share = DoubleColumn.create("share_pct"), score = DoubleColumn.create("score");
        StringColumn verdict = StringColumn.create("verdict"), caveat = StringColumn.create("noisy");
        for (Candidate c : ranked) {
            op.append(c.op().name());
            pass.append(c.pass().id());
            variant.append(c.variant().id());
            tokens.append((int) c.tokens());
            count.append(c.count());
            measured.append(c.measuredUs());
            ideal.append(c.idealUs());
            gap.append(c.gapUs());
            ratio.append(round(c.ratio(), 2));
            share.append(round(100 * c.share(), 2));
            score.append(round(c.score(), 2));
            verdict.append(verdictText(c));
            caveat.append(c.caveat());
        }
        t.addColumns(op, pass, variant, tokens, count, measured.column(), ideal.column(), gap.column(), ratio, share, score, verdict);
        if (ranked.stream().anyMatch(c -> !c.caveat().isEmpty())) t.addColumns(caveat);
        return t;
    }

    static double round(double v, int places) { return gluelab.units.Numbers.places(v, places); }
}
