package gluelab.chart;

/**
 * One value of a series at one category, and whether it can be trusted as it stands: a noisy
 * point (noise over the bound, too few samples, stopped on the timeout) is drawn hollow.
 * {@code value} null: no point there.
 */
public record Point(String category, Double value, boolean noisy) {
    public Point {
        if (category == null) throw new IllegalArgumentException("a chart point needs a category");
    }

    public static Point sound(String category, Double value) { return new Point(category, value, false); }
}
