package gluelab.report;

import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.record.Row;
import gluelab.table.Column;
import gluelab.table.Columns;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * gluelab's best known kernel per op instance against its floor: the catalogue's fused kernel, or
 * the op's generated region where that is faster by more than both medians' noise, so an
 * ideal-vs-best table does not credit the catalogue where the generated code for the same math
 * beats it (the H200's q-norm + RoPE backward at 32k: region 207.9 us, catalogue 218.4). Direct
 * launches only; an instance without a fused row has no line.
 */
public final class BestKnown {
    private BestKnown() {}

    /** One instance: the catalogue's row, the region's (null where none was measured), which is the best known, and why in words. */
    public record Line(OpId op, Pass pass, long tokens, double idealUs, Row fused, Row region, Variant best, String note) {
        public Row bestRow() { return best == Variant.REGION ? region : fused; }

        public double bestUs() { return bestRow().measuredUs(); }

        public double bestPercentOfFloor() { return bestRow().percentOfFloor(); }
    }

    /** One line per (op, pass, tokens) that has a fused row, in the rows' order. */
    public static List<Line> of(List<Row> rows) {
        record Instance(OpId op, Pass pass, long tokens) {}
        Map<Instance, Map<Variant, Row>> by = new LinkedHashMap<>();
        for (Row r : rows) {
            if (r.replay() != Replay.DIRECT || (r.variant() != Variant.FUSED && r.variant() != Variant.REGION)) continue;
            by.computeIfAbsent(new Instance(r.op(), r.pass(), r.tokens()), k -> new LinkedHashMap<>()).put(r.variant(), r);
        }
        List<Line> out = new ArrayList<>();
        by.forEach((in, v) -> {
            Row fused = v.get(Variant.FUSED), region = v.get(Variant.REGION);
            if (fused == null) return;
            out.add(line(in.op(), in.pass(), in.tokens(), fused, region));
        });
        return out;
    }

    static Line line(OpId op, Pass pass, long tokens, Row fused, Row region) {
        if (region == null) return new Line(op, pass, tokens, fused.idealUs(), fused, null, Variant.FUSED, "");
        double f = fused.measuredUs(), g = region.measuredUs();
        // Apart only where the gap is wider than both medians' noise bands together.
        double band = f * fused.measurement().noise() + g * region.measurement().noise();
        String pct = String.format(Locale.ROOT, "%.1f%%", 100 * Math.abs(f - g) / f);
        if (f - g > band) {
            return new Line(op, pass, tokens, fused.idealUs(), fused, region, Variant.REGION,
                    String.format(Locale.ROOT, "the generated region (%.1f us) beats the catalogue kernel (%.1f us) by %s: the region is the best known kernel", g, f, pct));
        }
        if (Math.abs(f - g) <= band) return new Line(op, pass, tokens, fused.idealUs(), fused, region, Variant.FUSED, "the generated region is within the noise of the catalogue kernel");
        return new Line(op, pass, tokens, fused.idealUs(), fused, region, Variant.FUSED, "");
    }

    private static final Column FUSED = Column.time("catalogue", "the catalogue's fused kernel, median of direct launches"),
            REGION = Column.time("region", "the op's generated region (the same math), median of direct launches"),
            BEST = Column.text("best", "gluelab's best known kernel: fused (the catalogue) or region"),
            BEST_PCT = Column.percent("best_pct_floor", "the best known kernel's pct_of_floor"),
            NOTE = Column.text("note", "where the generated region beats the catalogue kernel, or ties it");

    /** The lines as a table: ideal, catalogue, region, the best known and its % of floor, and a note. */
    public static Table table(List<Row> rows) {
        var t = DataTable.builder("ideal vs best known kernel", Columns.OP, Columns.PASS, Columns.TOKENS, Columns.IDEAL, FUSED, REGION, BEST, BEST_PCT, NOTE);
        for (Line l : of(rows)) {
            t.row(l.op().name(), l.pass().id(), l.tokens(), l.idealUs(), l.fused().measuredUs(), l.region() == null ? null : l.region().measuredUs(),
                    l.best().id(), l.bestPercentOfFloor(), l.note());
        }
        return TableFormat.tablesaw(t.build().withoutEmpty(REGION, NOTE));
    }
}
