package gluelab.table;

import gluelab.units.ByteScale;
import gluelab.units.Numbers;
import gluelab.units.TimeScale;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.NumberColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The one formatter of tables: a {@link DataTable} as a Tablesaw table (what notebooks hold and
 * filter), and any Tablesaw table as markdown, HTML or text; a {@link DataTable} as CSV. For people
 * each time column is written in one unit chosen from its values ({@code ideal (ms)}), each byte
 * column in one binary unit ({@code peak_mem (MiB)}), and a caveat column that says something comes
 * first. CSV is the data: raw values in their base unit under {@code ideal_us}, {@code peak_mem_bytes}.
 */
public final class TableFormat {
    private TableFormat() {}

    /** The table for people: scaled, rounded, caveats first. */
    public static Table tablesaw(DataTable d) {
        Table t = Table.create(d.title());
        for (int i : order(d)) t.addColumns(shown(d.columns().get(i), d.values(d.columns().get(i))));
        return t;
    }

    /** The table as data: raw values in base units, headers with the unit ({@code ideal_us}), in CSV with RFC 4180 quoting. */
    public static String csv(DataTable d) {
        Table t = Table.create(d.title());
        for (gluelab.table.Column c : d.columns()) t.addColumns(raw(c, d.values(c)));
        StringWriter w = new StringWriter();
        t.write().csv(w);
        return w.toString();
    }

    public static String markdown(DataTable d) { return markdown(tablesaw(d)); }

    public static String html(DataTable d) { return html(tablesaw(d), Integer.MAX_VALUE); }

    /** A table as a GitHub markdown table (findings docs, notebooks' text/markdown); caveats first. */
    public static String markdown(Table t) {
        List<Integer> order = order(t);
        StringBuilder sb = new StringBuilder("|");
        for (int c : order) sb.append(' ').append(t.column(c).name()).append(" |");
        sb.append("\n|");
        for (int c : order) sb.append(t.column(c) instanceof StringColumn ? "---|" : "---:|");
        sb.append('\n');
        for (int r = 0; r < t.rowCount(); r++) {
            sb.append('|');
            for (int c : order) sb.append(' ').append(cell(t.column(c), r)).append(" |");
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * A table as plain text: its title on a line of its own, left-aligned, then the columns as Tablesaw prints them
     * (at most {@code maxRows} rows). Tablesaw centres the title over the table's width, which put a wide table's title
     * a screen to the right behind a run of spaces.
     */
    public static String text(Table t, int maxRows) {
        Table body = Table.create(t.columns().toArray(new Column<?>[0]));
        String columns = body.print(maxRows);
        return t.name() == null || t.name().isBlank() ? columns : t.name() + System.lineSeparator() + columns;
    }

    /**
     * {@code s} in at most {@code width} characters: a longer one keeps its start and its end around "..." (an op's
     * "_backward", a location's "(llama3.py:72)" tell rows apart), so a text table's columns stay in line.
     */
    public static String fit(String s, int width) {
        if (width < 5) throw new IllegalArgumentException("a column must be at least 5 characters wide, got " + width);
        if (s.length() <= width) return s;
        int tail = (width - 3) / 2, head = width - 3 - tail;
        return s.substring(0, head) + "..." + s.substring(s.length() - tail);
    }

    /**
     * As {@link #text(Table, int)}, each text cell cut to {@code cellWidth} characters by {@link #fit}: a table of long
     * summaries stays within a terminal instead of running a screen wide (the whole text stays in the file it came from).
     */
    public static String text(Table t, int maxRows, int cellWidth) {
        Table cut = Table.create(t.name());
        for (Column<?> c : t.columns()) {
            cut.addColumns(c instanceof StringColumn s ? StringColumn.create(s.name(), s.asList().stream().map(v -> v == null ? "" : fit(v, cellWidth)).toList()) : c.copy());
        }
        return text(cut, maxRows);
    }

    /** Every row of {@code t} as {@link #text(Table, int)} writes it. */
    public static String text(Table t) { return text(t, Integer.MAX_VALUE); }

    /** Text longer than this wraps in its HTML cell (left-aligned) instead of widening the table. */
    public static final int WRAP_AT = 24;

    /**
     * A table as HTML that fits a notebook's width: a caveat column that says something comes first,
     * headers break at their underscores, long text wraps; past {@code maxRows} rows an "N more rows" line.
     */
    public static String html(Table t, int maxRows) {
        Table h = t.rowCount() > maxRows ? t.first(maxRows) : t;
        StringBuilder sb = new StringBuilder("<table><thead><tr>");
        List<Integer> order = order(h);
        for (int c : order) sb.append(th(h.column(c).name()));
        sb.append("</tr></thead><tbody>");
        for (int r = 0; r < h.rowCount(); r++) {
            sb.append("<tr>");
            for (int c : order) sb.append(td(cell(h.column(c), r)));
            sb.append("</tr>");
        }
        sb.append("</tbody></table>");
        if (t.rowCount() > maxRows) sb.append("<p>").append(t.rowCount() - maxRows).append(" more rows</p>");
        return (t.name() == null || t.name().isBlank() ? "" : "<p><b>" + escape(t.name()) + "</b></p>") + sb;
    }

    /** A cell as text: floating-point numbers without float noise (Tablesaw prints every digit of a raw double), a missing one empty. */
    public static String cell(Column<?> c, int row) {
        if (c instanceof NumberColumn<?, ?> n && !(c instanceof IntColumn) && !(c instanceof LongColumn)
                && !(c instanceof tech.tablesaw.api.ShortColumn)) {
            return n.isMissing(row) ? "" : DisplayNumbers.cell(n.getDouble(row));
        }
        return c.getString(row);
    }

    /** Column indexes with the caveat columns that say something first. */
    private static List<Integer> order(Table t) {
        List<Integer> flags = new ArrayList<>(), rest = new ArrayList<>();
        for (int c = 0; c < t.columnCount(); c++) {
            Column<?> col = t.column(c);
            boolean said = Columns.isCaveat(col.name()) && IntStream.range(0, col.size()).anyMatch(r -> !col.getString(r).isBlank());
            (said ? flags : rest).add(c);
        }
        flags.addAll(rest);
        return flags;
    }

    private static List<Integer> order(DataTable d) {
        List<Integer> flags = new ArrayList<>(), rest = new ArrayList<>();
        for (int i = 0; i < d.columns().size(); i++) {
            gluelab.table.Column c = d.columns().get(i);
            (c.unit() == Unit.CAVEAT && d.said(c) ? flags : rest).add(i);
        }
        flags.addAll(rest);
        return flags;
    }

    private static Column<?> shown(gluelab.table.Column c, List<Object> values) {
        return switch (c.unit()) {
            case TEXT, CAVEAT -> StringColumn.create(c.name(), values.stream().map(v -> v == null ? "" : (String) v).toList());
            case TIMESTAMP -> StringColumn.create(c.name(), values.stream().map(TableFormat::timestamp).toList());
            case COUNT -> counts(c.name(), values);
            case TIME -> scaled(c.name(), TimeScale.of(doubles(values)), values);
            case BYTES -> scaled(c.name(), ByteScale.of(doubles(values)), values);
            default -> {
                DoubleColumn out = DoubleColumn.create(c.name());
                for (double v : doubles(values)) out.append(Double.isFinite(v) ? c.rounding().apply(v) : Double.NaN);
                yield out;
            }
        };
    }

    private static DoubleColumn scaled(String name, gluelab.units.ColumnScale scale, List<Object> values) {
        DoubleColumn out = DoubleColumn.create(scale.header(name));
        for (double v : doubles(values)) out.append(scale.cell(v));
        return out;
    }

    private static Column<?> raw(gluelab.table.Column c, List<Object> values) {
        return switch (c.unit()) {
            case TEXT, CAVEAT -> StringColumn.create(c.csvHeader(), values.stream().map(v -> v == null ? "" : (String) v).toList());
            case TIMESTAMP -> StringColumn.create(c.csvHeader(), values.stream().map(TableFormat::timestamp).toList());
            case COUNT -> counts(c.csvHeader(), values);
            default -> DoubleColumn.create(c.csvHeader(), doubles(values));
        };
    }

    private static Column<?> counts(String name, List<Object> values) {
        boolean fits = values.stream().allMatch(v -> v == null || Math.abs(((Number) v).longValue()) <= Integer.MAX_VALUE);
        if (fits) {
            IntColumn out = IntColumn.create(name);
            for (Object v : values) if (v == null) out.appendMissing(); else out.append(((Number) v).intValue());
            return out;
        }
        LongColumn out = LongColumn.create(name);
        for (Object v : values) if (v == null) out.appendMissing(); else out.append(((Number) v).longValue());
        return out;
    }

    private static double[] doubles(List<Object> values) {
        return values.stream().mapToDouble(v -> v == null ? Double.NaN : ((Number) v).doubleValue()).map(v -> Double.isFinite(v) ? v : Double.NaN).toArray();
    }

    private static String timestamp(Object v) {
        if (v == null) return "";
        if (v instanceof Instant i) return Numbers.timestamp(i);
        String s = (String) v;
        try {
            return Numbers.timestamp(Instant.parse(s));
        } catch (java.time.format.DateTimeParseException e) {
            return s;
        }
    }

    /** A header cell that may break after an underscore ("median_us"). */
    public static String th(String name) { return "<th>" + escape(name).replace("_", "_<wbr>") + "</th>"; }

    /** A body cell; long text wraps. */
    public static String td(String text) {
        String e = escape(text);
        return text.length() > WRAP_AT ? "<td style='text-align:left;white-space:normal;min-width:12em;max-width:32em'>" + e + "</td>" : "<td>" + e + "</td>";
    }

    public static String escape(String s) { return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"); }
}
