package gluelab.report;

import gluelab.ops.MeasureKey;
import gluelab.record.Row;
import gluelab.units.Numbers;
import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.Rounding;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Two runs' row medians matched by measurement key (op, pass, variant, replay, tokens, dtype): how
 * far apart they are, and which rows differ by more than a bound. This is the precision check of
 * the method: two demos agree within 2% on every row; a demo agrees within 1% with a run of 10x the
 * minimum time. {@code diff} is A's median over B's, minus one.
 */
public record MedianComparison(List<Pair> pairs, List<MeasureKey> onlyA, List<MeasureKey> onlyB, double bound) {
    public record Pair(MeasureKey key, Row a, Row b) {
        public double diff() { return a.measurement().summary().median() / b.measurement().summary().median() - 1; }
    }

    public MedianComparison {
        pairs = List.copyOf(pairs);
        onlyA = List.copyOf(onlyA);
        onlyB = List.copyOf(onlyB);
        if (!(bound > 0) || Double.isInfinite(bound)) throw new IllegalArgumentException("bound must be a finite fraction > 0, got " + bound);
    }

    /** Matches {@code a}'s rows with {@code b}'s; a key twice in one run is refused, naming it (merged shards should not overlap). */
    public static MedianComparison of(List<Row> a, List<Row> b, double bound) {
        Map<MeasureKey, Row> byA = index(a, "A"), byB = index(b, "B");
        List<Pair> pairs = new ArrayList<>();
        List<MeasureKey> onlyA = new ArrayList<>(), onlyB = new ArrayList<>();
        for (var e : byA.entrySet()) {
            Row other = byB.get(e.getKey());
            if (other == null) onlyA.add(e.getKey());
            else pairs.add(new Pair(e.getKey(), e.getValue(), other));
        }
        for (MeasureKey k : byB.keySet()) if (!byA.containsKey(k)) onlyB.add(k);
        pairs.sort(Comparator.comparing(Pair::key, MeasureKey.ORDER));
        return new MedianComparison(pairs, onlyA, onlyB, bound);
    }

    private static Map<MeasureKey, Row> index(List<Row> rows, String run) {
        Map<MeasureKey, Row> out = new LinkedHashMap<>();
        for (Row r : rows) {
            if (out.put(r.key(), r) != null) throw new IllegalArgumentException("run " + run + " has row " + r.key() + " twice");
        }
        return out;
    }

    /** Rows whose medians differ by more than the bound, largest difference first. */
    public List<Pair> over() {
        return pairs.stream().filter(p -> Math.abs(p.diff()) > bound)
                .sorted(Comparator.comparingDouble((Pair p) -> -Math.abs(p.diff()))).toList();
    }

    public boolean agree() { return over().isEmpty(); }

    /** The median of |diff| over matched rows (0 when none matched). */
    public double medianAbsDiff() {
        if (pairs.isEmpty()) return 0;
        return gluelab.timing.Summary.of(pairs.stream().mapToDouble(p -> Math.abs(p.diff())).toArray()).median();
    }

    public double maxAbsDiff() { return pairs.stream().mapToDouble(p -> Math.abs(p.diff())).max().orElse(0); }

    /** "208 rows in both; median |diff| 0.07%, max 2.50% (add_rmsnorm bwd fused T=2048 bf16); 1 over 2%". */
    public String summary() {
        String max = pairs.isEmpty() ? "" : " (" + pairs.stream().max(Comparator.comparingDouble(p -> Math.abs(p.diff()))).orElseThrow().key() + ")";
        String only = (onlyA.isEmpty() ? "" : "; " + onlyA.size() + " only in A") + (onlyB.isEmpty() ? "" : "; " + onlyB.size() + " only in B");
        return String.format(Locale.ROOT, "%d rows in both; median |diff| %s, max %s%s; %d over %s%s", pairs.size(),
                pct(medianAbsDiff()), pct(maxAbsDiff()), max, over().size(), Numbers.percent(bound), only);
    }

    private static final Column MEDIAN_A = Columns.MEDIAN.named("median_a"), MEDIAN_B = Columns.MEDIAN.named("median_b"),
            DIFF = Column.percent("diff_pct", "A's median over B's, minus one, x100").rounded(Rounding.places(2)),
            SAMPLES_A = Columns.SAMPLES.named("samples_a"), SAMPLES_B = Columns.SAMPLES.named("samples_b"),
            STOPS = Column.text("stop_a_b", "why sampling stopped in A / in B");

    /** The rows over the bound, largest first: medians, diff, samples and stop reasons of both, and why either is noisy. */
    public Table overTable() {
        var t = DataTable.builder("rows over " + Numbers.percent(bound), Columns.OP, Columns.PASS, Columns.VARIANT, Columns.TOKENS, MEDIAN_A, MEDIAN_B,
                DIFF, SAMPLES_A, SAMPLES_B, STOPS, Columns.NOISY);
        for (Pair p : over()) {
            var a = p.a().measurement();
            var b = p.b().measurement();
            List<String> noisy = new ArrayList<>();
            a.noisy().ifPresent(w -> noisy.add("A: " + w));
            b.noisy().ifPresent(w -> noisy.add("B: " + w));
            t.row(p.key().op().name(), p.key().pass().id(), p.key().series(), p.key().tokens(), p.a().measuredUs(), p.b().measuredUs(), 100 * p.diff(),
                    a.summary().count(), b.summary().count(),
                    a.stopReason().name().toLowerCase(Locale.ROOT) + "/" + b.stopReason().name().toLowerCase(Locale.ROOT), String.join("; ", noisy));
        }
        return TableFormat.tablesaw(t.build());
    }

    private static String pct(double fraction) { return String.format(Locale.ROOT, "%.2f%%", 100 * fraction); }
}
