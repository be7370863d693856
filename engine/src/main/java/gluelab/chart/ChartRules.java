package gluelab.chart;

import java.util.Collection;

/**
 * The decisions every chart makes the same way, apart from drawing so a test can check them: a
 * log value axis when the values span more than {@link #LOG_SPAN}; a noisy point far above the
 * sound ones ({@link #CLIP_FACTOR}) clipped to the axis edge rather than stretching the axis; how a
 * noisy point's series is named (drawn hollow beside its sound twin, with its own legend entry)
 * and how the clipped points' legend entry counts them. {@link ValueAxis#fit} applies them.
 */
public final class ChartRules {
    private ChartRules() {}

    /** Values spanning more than this (max / min) get a log axis: on a linear one the small ones vanish. */
    public static final double LOG_SPAN = 100;

    /** A noisy point more than this factor above the sound points' range is clipped. */
    public static final double CLIP_FACTOR = 10;

    /** The legend suffix of a series' noisy points. */
    public static final String NOISY = " (noisy, hollow)";

    /** True when the positive, finite {@code values} span more than {@link #LOG_SPAN}. */
    public static boolean logAxis(Collection<Double> values) {
        double min = Double.POSITIVE_INFINITY, max = 0;
        for (Double v : values) {
            if (v == null || !(v > 0) || Double.isInfinite(v)) continue;
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        return max > 0 && max / min > LOG_SPAN;
    }

    /** The series that holds {@code series}' noisy points. */
    public static String noisySeries(String series) { return series + NOISY; }

    /** The legend entry of the points clipped at one edge: "beyond the axis top (2 points, values under the chart)". */
    public static String clippedSeries(ValueAxis.Side side, int count) {
        return "beyond the axis " + (side == ValueAxis.Side.ABOVE ? "top" : "bottom") + " (" + count + (count == 1 ? " point" : " points")
                + ", values under the chart)";
    }
}
