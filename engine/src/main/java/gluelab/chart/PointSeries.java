package gluelab.chart;

import java.util.List;

/** A named series of points, at most one per category; its name is its legend entry. */
public record PointSeries(String name, List<Point> points) {
    public PointSeries {
        points = List.copyOf(points);
        if (points.stream().map(Point::category).distinct().count() != points.size())
            throw new IllegalArgumentException("series " + name + " has two points at one category");
    }

    /** The point at {@code category}, or null. */
    Point at(String category) {
        for (Point p : points) if (p.category().equals(category)) return p;
        return null;
    }
}
