package gluelab.units;

import tech.tablesaw.api.DoubleColumn;

import java.util.ArrayList;
import java.util.List;

/**
 * A table column of times, gathered in us and written in one unit chosen from the column's largest
 * value ({@link TimeScale}), named with it: {@code median (ms)}. Missing, NaN or infinite times are
 * empty cells. Records keep the raw us; this is for what people read.
 */
public final class TimeColumn {
    private final String name;
    private final List<Double> us = new ArrayList<>();

    public TimeColumn(String name) { this.name = name; }

    /** A time in us; NaN for a row with no time. */
    public TimeColumn append(double us) {
        this.us.add(us);
        return this;
    }

    /** The scale the column will be written in. */
    public TimeScale scale() { return TimeScale.of(us.stream().mapToDouble(Double::doubleValue).toArray()); }

    /** The Tablesaw column: "name (unit)", each cell scaled and rounded. */
    public DoubleColumn column() {
        TimeScale s = scale();
        DoubleColumn c = DoubleColumn.create(s.header(name));
        for (double v : us) c.append(s.cell(v));
        return c;
    }
}
