package gluelab.chart;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The value axis a chart's points decide ({@link ChartRules}): log or linear, and the range of
 * values drawn where they are ({@code from}..{@code to}). A point outside that range is clipped:
 * drawn as a triangle at the axis edge, its value written out under the chart.
 */
public record ValueAxis(boolean log, double from, double to, boolean clipsAbove, boolean clipsBelow) {
    /** Where a value lands on this axis. */
    public enum Side { ON, ABOVE, BELOW, NONE }

    /**
     * Fits the axis to the sound points and the reference lines ({@code references}: the ideal,
     * the 100% line); with no sound point, to all of them. A noisy point more than
     * {@link ChartRules#CLIP_FACTOR} above that range does not stretch the axis (one disturbed
     * sample would squash every other point): it is clipped. Only above: a disturbed run is slower,
     * and a small value is a point in its own right (128 tokens beside 4k). Then log when the kept
     * values span more than {@link ChartRules#LOG_SPAN}; on a log axis, values at or below zero
     * (which it cannot place) are clipped at the bottom.
     */
    public static ValueAxis fit(Collection<Point> points, Collection<Double> references) {
        List<Double> anchor = new ArrayList<>();
        for (Point p : points) if (!p.noisy() && finite(p.value())) anchor.add(p.value());
        for (Double r : references) if (finite(r)) anchor.add(r);
        if (anchor.isEmpty()) for (Point p : points) if (finite(p.value())) anchor.add(p.value());
        if (anchor.isEmpty()) return new ValueAxis(false, 0, 0, false, false);
        double lo = anchor.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double hi = anchor.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        List<Double> kept = new ArrayList<>(anchor);
        for (Point p : points) {
            if (!p.noisy() || !finite(p.value())) continue;
            if (hi > 0 && p.value() > hi * ChartRules.CLIP_FACTOR) continue;
            kept.add(p.value());
        }
        boolean log = ChartRules.logAxis(kept);
        double from = kept.stream().mapToDouble(Double::doubleValue).filter(v -> !log || v > 0).min().orElse(lo);
        double to = kept.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        ValueAxis fitted = new ValueAxis(log, from, to, false, false);
        boolean above = false, below = false;
        for (Point p : points) {
            Side s = fitted.side(p.value());
            above |= s == Side.ABOVE;
            below |= s == Side.BELOW;
        }
        return new ValueAxis(log, from, to, above, below);
    }

    /** Where {@code v} lands: NONE for no value (null, NaN). */
    public Side side(Double v) {
        if (v == null || v.isNaN()) return Side.NONE;
        if (v > to) return Side.ABOVE;
        if (v < from || (log && v <= 0)) return Side.BELOW;
        return Side.ON;
    }

    /** Where a clipped point's marker sits: just inside the axis edge on its side. */
    public double mark(Side side) {
        double span = to - Math.min(from, 0);
        return switch (side) {
            case ABOVE -> log ? to * 1.6 : to + 0.06 * span;
            case BELOW -> log ? from / 1.6 : from - 0.06 * span;
            default -> throw new IllegalArgumentException("no mark for a point " + side);
        };
    }

    /** The axis maximum to set (null: XChart's own), leaving room for the clip markers. */
    public Double max() { return clipsAbove ? (log ? mark(Side.ABOVE) * 1.4 : mark(Side.ABOVE) + 0.04 * (to - Math.min(from, 0))) : null; }

    /** The axis minimum to set (null: XChart's own). */
    public Double min() { return clipsBelow ? (log ? mark(Side.BELOW) / 1.4 : mark(Side.BELOW) - 0.04 * (to - Math.min(from, 0))) : null; }

    private static boolean finite(Double v) { return v != null && Double.isFinite(v); }
}
