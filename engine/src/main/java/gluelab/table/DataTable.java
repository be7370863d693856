package gluelab.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A table as data: a title, columns from the vocabulary, and rows of raw values in each column's
 * base unit (times in us, bytes as counts; {@code null} for a value a row does not have).
 * {@link TableFormat} writes it as a Tablesaw table, markdown, HTML or CSV.
 */
public record DataTable(String title, List<Column> columns, List<List<Object>> rows) {
    public DataTable {
        columns = List.copyOf(columns);
        List<List<Object>> copy = new ArrayList<>();
        for (List<Object> r : rows) copy.add(java.util.Collections.unmodifiableList(new ArrayList<>(r)));
        rows = List.copyOf(copy);
    }

    public static Builder builder(String title, Column... columns) { return new Builder(title, List.of(columns)); }

    public static Builder builder(String title, List<Column> columns) { return new Builder(title, columns); }

    /** The values of {@code column}, one per row. */
    public List<Object> values(Column column) {
        int i = columns.indexOf(column);
        if (i < 0) throw new IllegalArgumentException("table '" + title + "' has no column " + column.name());
        return rows.stream().map(r -> r.get(i)).toList();
    }

    /** True when some row has a value in {@code column} (a caveat column: a non-blank one). */
    public boolean said(Column column) { return values(column).stream().anyMatch(DataTable::present); }

    /** This table without those of {@code optional} that no row has a value in (graph columns of a run without graphs). */
    public DataTable withoutEmpty(Column... optional) {
        Set<Column> drop = new java.util.HashSet<>();
        for (Column c : optional) if (columns.contains(c) && !said(c)) drop.add(c);
        if (drop.isEmpty()) return this;
        List<Integer> keep = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) if (!drop.contains(columns.get(i))) keep.add(i);
        return new DataTable(title, keep.stream().map(columns::get).toList(), rows.stream().map(r -> keep.stream().map(r::get).toList()).toList());
    }

    static boolean present(Object v) {
        return switch (v) {
            case null -> false;
            case String s -> !s.isBlank();
            case Double d -> Double.isFinite(d);
            case Float f -> Float.isFinite(f);
            default -> true;
        };
    }

    /** Rows in the order of the builder's columns; each value checked against its column's unit, naming the column. */
    public static final class Builder {
        private final String title;
        private final List<Column> columns;
        private final List<List<Object>> rows = new ArrayList<>();

        Builder(String title, List<Column> columns) {
            this.title = title;
            this.columns = List.copyOf(columns);
            long distinct = columns.stream().map(Column::name).distinct().count();
            if (distinct != columns.size()) throw new IllegalArgumentException("table '" + title + "' names a column twice: " + columns.stream().map(Column::name).toList());
        }

        public Builder row(Object... values) {
            if (values.length != columns.size()) {
                throw new IllegalArgumentException("table '" + title + "': a row of " + values.length + " values for " + columns.size() + " columns "
                        + columns.stream().map(Column::name).toList());
            }
            for (int i = 0; i < values.length; i++) check(columns.get(i), values[i]);
            rows.add(Arrays.asList(values.clone()));
            return this;
        }

        public DataTable build() { return new DataTable(title, columns, rows); }

        private void check(Column c, Object v) {
            if (v == null) return;
            boolean ok = switch (c.unit()) {
                case TEXT, CAVEAT -> v instanceof String;
                case COUNT -> v instanceof Integer || v instanceof Long || v instanceof Short;
                case TIMESTAMP -> v instanceof Instant || v instanceof String;
                default -> v instanceof Number;
            };
            if (!ok) throw new IllegalArgumentException("table '" + title + "', column " + c.name() + " (" + c.unit() + "): not a value of that unit: " + v
                    + " (" + v.getClass().getSimpleName() + ")");
        }
    }
}
