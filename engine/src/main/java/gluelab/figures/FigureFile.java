package gluelab.figures;

import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A question's figures as read from its CSV file: a header naming the figure columns followed by
 * {@link Provenance#COLUMNS}, then one figure per line. Every cell is kept as written (text, not numbers),
 * so the page shows the digits that were measured.
 */
public record FigureFile(Path path, List<String> columns, List<FigureRow> rows) {
    private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

    public FigureFile {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
    }

    public static FigureFile read(Path path) {
        if (!Files.isRegularFile(path)) throw new IllegalArgumentException(path + ": no such figure file");
        Table t;
        try {
            t = Table.read().csv(CsvReadOptions.builder(path.toFile()).columnTypes(name -> ColumnType.STRING).build());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(path + ": not a readable CSV file: " + e.getMessage(), e);
        }
        List<String> names = t.columnNames();
        int figures = names.size() - Provenance.COLUMNS.size();
        if (figures < 1 || !names.subList(figures, names.size()).equals(Provenance.COLUMNS))
            throw new IllegalArgumentException(path + ":1: the header must end with " + String.join(",", Provenance.COLUMNS) + " after at least one figure column");
        List<FigureRow> rows = new ArrayList<>();
        for (int r = 0; r < t.rowCount(); r++) {
            int line = r + 2; // cells hold no line breaks (checked below), so row r is line r + 2
            List<String> cells = new ArrayList<>();
            for (int c = 0; c < names.size(); c++) {
                String cell = t.stringColumn(c).get(r).strip();
                if (cell.contains("\n")) throw new IllegalArgumentException(path + ":" + line + ": field " + names.get(c) + " holds a line break");
                if (cell.isEmpty()) throw new IllegalArgumentException(path + ":" + line + ": field " + names.get(c) + " is empty (write - for no figure)");
                cells.add(cell);
            }
            String date = cells.get(figures + 1);
            if (!DATE.matcher(date).matches()) throw new IllegalArgumentException(path + ":" + line + ": field date is '" + date + "', not YYYY-MM-DD");
            rows.add(new FigureRow(line, cells.subList(0, figures),
                    new Provenance(cells.get(figures), date, cells.get(figures + 2), cells.get(figures + 3), cells.get(figures + 4))));
        }
        return new FigureFile(path, names.subList(0, figures), rows);
    }

    /** Index of a figure column, or a clear error naming the file and the column. */
    public int column(String name) {
        int i = columns.indexOf(name);
        if (i < 0 && !name.equals("device")) throw new IllegalArgumentException(path + ":1: no column " + name + " (key of its question in index.json)");
        return i;
    }
}
