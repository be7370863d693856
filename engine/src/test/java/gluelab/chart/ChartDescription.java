package gluelab.chart;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;

import java.awt.Color;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * What a chart shows, as text a golden file can hold: title, axes (log or linear, set limits),
 * how it is drawn (bars with value labels or dots), and each series with its marker, colour and
 * points. It reads the XChart chart itself, so it checks what is drawn, and holds nothing that
 * depends on fonts or the machine (no pixel positions).
 */
final class ChartDescription {
    private ChartDescription() {}

    static String of(CategoryChart c) {
        var st = c.getStyler();
        List<String> out = new ArrayList<>();
        out.add("title: " + c.getTitle());
        out.add("category axis: " + c.getXAxisTitle());
        out.add("category labels: rotated " + st.getXAxisLabelRotation() + (st.getXAxisLabelRotation() == 0 ? "" : ", ending at their tick: "
                + (st.getXAxisLabelAlignment() == org.knowm.xchart.style.AxesChartStyler.TextAlignment.Right)));
        out.add("value axis: " + (st.isYAxisLogarithmic() ? "log" : "linear") + ", \"" + c.getYAxisTitle() + "\""
                + (st.getYAxisMin() == null ? "" : ", min " + num(st.getYAxisMin())) + (st.getYAxisMax() == null ? "" : ", max " + num(st.getYAxisMax())));
        boolean bars = st.getDefaultSeriesRenderStyle() == CategorySeries.CategorySeriesRenderStyle.Bar;
        out.add("drawn as: " + (bars ? "bars" + (st.isLabelsVisible() ? " with value labels" : " without value labels") : "dots on their tick (overlapped: " + st.isOverlapped() + ")"));
        for (CategorySeries s : c.getSeriesMap().values()) {
            var style = s.getChartCategorySeriesRenderStyle() == null ? st.getDefaultSeriesRenderStyle() : s.getChartCategorySeriesRenderStyle();
            StringBuilder b = new StringBuilder("series \"" + s.getName() + "\": " + style.name().toLowerCase(Locale.ROOT));
            if (style != CategorySeries.CategorySeriesRenderStyle.Bar && style != CategorySeries.CategorySeriesRenderStyle.Line)
                b.append(", marker ").append(s.getMarker() == null ? "default" : s.getMarker().getClass().getSimpleName());
            b.append(", colour ").append(hex(bars ? s.getFillColor() : style == CategorySeries.CategorySeriesRenderStyle.Line ? s.getLineColor() : s.getMarkerColor()));
            List<String> points = new ArrayList<>();
            Iterator<?> xs = s.getXData().iterator();
            for (Number y : s.getYData()) {
                Object x = xs.next();
                if (y != null) points.add(x + " = " + num(y.doubleValue()));
            }
            out.add(b + "\n    " + String.join("\n    ", points));
        }
        for (Object a : annotations(c))
            if (a instanceof ValueLabels v)
                out.add("value labels beside the dots:\n    " + String.join("\n    ", v.labels().stream().map(l -> "category " + l.category() + ": " + l.text()).toList()));
        return String.join("\n", out) + "\n";
    }

    /** XChart keeps a chart's annotations to itself; a description must see them too. */
    static List<?> annotations(CategoryChart c) {
        try {
            var f = org.knowm.xchart.internal.chartpart.Chart.class.getDeclaredField("annotations");
            f.setAccessible(true);
            return (List<?>) f.get(c);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("XChart's Chart.annotations is gone: " + e, e);
        }
    }

    static String num(double v) { return String.format(Locale.ROOT, "%.4g", v); }

    static String hex(Color c) { return c == null ? "auto" : String.format("#%02x%02x%02x", c.getRed(), c.getGreen(), c.getBlue()); }
}
