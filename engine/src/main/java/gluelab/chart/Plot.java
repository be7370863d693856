package gluelab.chart;

import gluelab.units.TimeScale;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.awt.Font;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.*;

/**
 * One category chart drawn by the {@link ChartRules}, the way every gluelab chart is drawn: the
 * value axis fitted by {@link ValueAxis#fit} (log past a 100x span, far-off noisy points clipped),
 * noisy points hollow in their twin's colour with their own legend entry, clipped points as
 * triangles at the axis edge counted in the legend and written out under the chart, reference
 * lines (the 100% line) always drawn, category labels ending at their ticks. Bars (with value
 * labels) only where asked and every point is sound and on a linear axis; otherwise dots, which
 * sit on their category's tick.
 */
public final class Plot {
    /** Series colours; a series' noisy twin shares its colour. */
    static final Color[] PALETTE = {new Color(31, 119, 180), new Color(255, 127, 14), new Color(44, 160, 44), new Color(148, 103, 189),
            new Color(140, 86, 75), new Color(227, 119, 194), new Color(127, 127, 127), new Color(188, 189, 34)};
    /** The clip markers' colour, used by nothing else. */
    public static final Color CLIPPED = new Color(214, 39, 40);
    /** At most this many clipped values are written out under the chart; the rest are counted. */
    static final int NOTED = 2;

    private final String title, categoryTitle, valueTitle, unit;
    /** Values are times in us, drawn in the unit {@link TimeScale} picks from the axis (us, ms or s). */
    private final boolean times;
    private String noteUnit;
    private final List<String> categories = new ArrayList<>();
    private final List<PointSeries> series = new ArrayList<>();
    private final Map<String, Double> lines = new LinkedHashMap<>();
    private boolean bars, valueLabels;
    private int width = 1200, height = 600, labelRotation = 45;

    private Plot(String title, String categoryTitle, String valueTitle, String unit, boolean times) {
        this.title = title;
        this.categoryTitle = categoryTitle;
        this.valueTitle = valueTitle;
        this.unit = unit;
        this.times = times;
        this.noteUnit = unit;
    }

    /** A chart titled {@code title}; the value axis reads "{@code valueTitle} ({@code unit}[, log scale])" ({@code unit} null: none). */
    public static Plot of(String title, String categoryTitle, String valueTitle, String unit) {
        return new Plot(title, categoryTitle, valueTitle, unit, false);
    }

    /**
     * A chart of times given in us, drawn in us, ms or s as the tables write them: the unit
     * {@link TimeScale#forMax} picks for the top of the axis (a clipped glitch does not decide it).
     */
    public static Plot times(String title, String categoryTitle, String valueTitle) {
        return new Plot(title, categoryTitle, valueTitle, TimeScale.US.symbol(), true);
    }

    /** The unit the value axis is drawn in: for a chart of times, the one its data picked. */
    public String unit() { return times ? scale().symbol() : unit; }

    private TimeScale scale() { return TimeScale.forMax(ValueAxis.fit(points(), lines.values()).to()); }

    /** This plot with its times (points and lines) in {@code scale}, drawn as a plain plot in that unit. */
    private Plot in(TimeScale scale) {
        Plot p = new Plot(title, categoryTitle, valueTitle, scale.symbol(), false);
        p.categories.addAll(categories);
        for (PointSeries s : series) p.series.add(new PointSeries(s.name(), s.points().stream().map(x -> new Point(x.category(), x.value() == null ? null : scale.scale(x.value()), x.noisy())).toList()));
        lines.forEach((name, v) -> p.lines.put(name, scale.scale(v)));
        p.bars = bars;
        p.valueLabels = valueLabels;
        p.width = width;
        p.height = height;
        p.labelRotation = labelRotation;
        return p;
    }

    /** The unit a clipped value is written with under the chart, where the axis title has none ("%"). */
    public Plot noteUnit(String unit) { noteUnit = unit; return this; }

    /**
     * Bars with value labels where the rules allow them (all points sound, linear axis, nothing
     * clipped); where they do not, dots with their values written beside them.
     */
    public Plot bars() { bars = true; valueLabels = true; return this; }

    public Plot size(int width, int height) { this.width = width; this.height = height; return this; }

    /** Category labels' rotation in degrees (0: horizontal). */
    public Plot labelRotation(int degrees) { labelRotation = degrees; return this; }

    /** Sets the categories' order (series may add more after them). */
    public Plot categories(List<String> order) {
        for (String c : order) if (!categories.contains(c)) categories.add(c);
        return this;
    }

    /** Adds a series; its categories join the chart's, in order of first appearance. */
    public Plot series(String name, List<Point> points) {
        PointSeries s = new PointSeries(name, points);
        for (Point p : s.points()) if (!categories.contains(p.category())) categories.add(p.category());
        series.add(s);
        return this;
    }

    /** A horizontal reference line at {@code value}, drawn whatever the data, with its legend entry. */
    public Plot line(String name, double value) { lines.put(name, value); return this; }

    /** The points' axis, as {@link #chart} draws it (in {@link #unit()}). */
    public ValueAxis axis() { return times ? in(scale()).axis() : ValueAxis.fit(points(), lines.values()); }

    private List<Point> points() { return series.stream().flatMap(s -> s.points().stream()).toList(); }

    public CategoryChart chart() {
        if (categories.isEmpty()) throw new IllegalArgumentException("nothing to chart for " + title);
        if (times) return in(scale()).chart();
        ValueAxis axis = axis();
        List<Point> all = points();
        boolean asBars = bars && !axis.log() && !axis.clipsAbove() && !axis.clipsBelow() && all.stream().noneMatch(Point::noisy);
        List<String> clippedNotes = new ArrayList<>();
        Map<ValueAxis.Side, Set<String>> clippedAt = new EnumMap<>(ValueAxis.Side.class);
        Map<ValueAxis.Side, Integer> clippedCount = new EnumMap<>(ValueAxis.Side.class);
        for (PointSeries s : series) {
            for (Point p : s.points()) {
                ValueAxis.Side side = axis.side(p.value());
                if (side != ValueAxis.Side.ABOVE && side != ValueAxis.Side.BELOW) continue;
                clippedAt.computeIfAbsent(side, k -> new LinkedHashSet<>()).add(p.category());
                clippedCount.merge(side, 1, Integer::sum);
                clippedNotes.add(p.category() + " " + s.name() + " " + format(p.value()) + (p.noisy() ? " (noisy)" : ""));
            }
        }
        CategoryChart c = new CategoryChartBuilder().width(width).height(height).title(title)
                .xAxisTitle(categoryTitle + clipNote(clippedNotes)).yAxisTitle(valueTitle(axis.log())).build();
        Charts.style(c);
        var st = c.getStyler();
        st.setXAxisLabelRotation(labelRotation);
        // A rotated label ends at its tick; centred, its end sat one tick to the right.
        if (labelRotation != 0) st.setXAxisLabelAlignment(AxesChartStyler.TextAlignment.Right);
        st.setYAxisLogarithmic(axis.log());
        if (axis.max() != null) st.setYAxisMax(axis.max());
        if (axis.min() != null) st.setYAxisMin(axis.min());
        if (asBars) {
            st.setOverlapped(false);
            st.setLabelsVisible(true);
            st.setLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            st.setLabelsFontColorAutomaticEnabled(false);
            st.setLabelsFontColor(Color.BLACK);
        } else {
            st.setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
            st.setMarkerSize(10);
            // Overlapped: every series' marker sits on its category's tick, not offset into a bar slot.
            st.setOverlapped(true);
        }
        int i = 0;
        for (PointSeries s : series) {
            Color colour = PALETTE[i++ % PALETTE.length];
            List<Double> sound = new ArrayList<>(), hollow = new ArrayList<>();
            for (String cat : categories) {
                Point p = s.at(cat);
                boolean on = p != null && axis.side(p.value()) == ValueAxis.Side.ON;
                sound.add(on && !p.noisy() ? p.value() : null); // null: no marker
                hollow.add(on && p.noisy() ? p.value() : null);
            }
            if (asBars || sound.stream().anyMatch(Objects::nonNull)) {
                CategorySeries cs = c.addSeries(s.name(), categories, asBars ? sound.stream().map(v -> v == null ? 0.0 : v).toList() : sound);
                cs.setFillColor(colour);
                cs.setMarkerColor(colour);
                cs.setLineColor(colour);
                if (!asBars) cs.setMarker(SeriesMarkers.CIRCLE);
            }
            if (hollow.stream().anyMatch(Objects::nonNull)) {
                CategorySeries cs = c.addSeries(ChartRules.noisySeries(s.name()), categories, hollow);
                cs.setMarker(new HollowCircle());
                cs.setMarkerColor(colour);
                cs.setLineColor(colour);
            }
        }
        if (valueLabels && !asBars) {
            List<ValueLabels.Label> labels = new ArrayList<>();
            for (int k = 0; k < series.size(); k++)
                for (Point p : series.get(k).points())
                    if (axis.side(p.value()) == ValueAxis.Side.ON)
                        labels.add(new ValueLabels.Label(categories.indexOf(p.category()), k, p.value(), label(p.value())));
            c.addAnnotation(new ValueLabels(categories.size(), labels));
        }
        for (ValueAxis.Side side : clippedAt.keySet()) {
            double mark = axis.mark(side);
            Set<String> at = clippedAt.get(side);
            CategorySeries cs = c.addSeries(ChartRules.clippedSeries(side, clippedCount.get(side)), categories,
                    categories.stream().map(cat -> at.contains(cat) ? mark : null).toList());
            cs.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
            cs.setMarker(side == ValueAxis.Side.ABOVE ? SeriesMarkers.TRIANGLE_UP : SeriesMarkers.TRIANGLE_DOWN);
            cs.setMarkerColor(CLIPPED);
        }
        for (var line : lines.entrySet()) {
            CategorySeries floor = c.addSeries(line.getKey(), categories, categories.stream().map(x -> line.getValue()).toList());
            floor.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
            floor.setMarker(SeriesMarkers.NONE);
            floor.setLineColor(Color.DARK_GRAY);
        }
        return c;
    }

    private String valueTitle(boolean log) {
        List<String> in = new ArrayList<>();
        if (unit != null) in.add(unit);
        if (log) in.add("log scale");
        return valueTitle + (in.isEmpty() ? "" : " (" + String.join(", ", in) + ")");
    }

    /** "; beyond the axis: a 74,205 us (noisy), ..." under the chart, or "". */
    private static String clipNote(List<String> notes) {
        if (notes.isEmpty()) return "";
        String shown = String.join("; ", notes.subList(0, Math.min(NOTED, notes.size())));
        return "   |   beyond the axis: " + shown + (notes.size() > NOTED ? "; and " + (notes.size() - NOTED) + " more" : "");
    }

    /** A value label: whole units from 1,000, one decimal from 100, two from 10, three below (14,326 not 14,326.34). */
    static String label(double v) {
        double a = Math.abs(v);
        String pattern = a >= 1000 ? "#,##0" : a >= 100 ? "#,##0.#" : a >= 10 ? "#,##0.##" : "#,##0.###";
        return new DecimalFormat(pattern, DecimalFormatSymbols.getInstance(Locale.ROOT)).format(v);
    }

    private static String number(double v) { return new DecimalFormat("#,##0.##", DecimalFormatSymbols.getInstance(Locale.ROOT)).format(v); }

    private String format(double v) {
        String n = Double.isNaN(v) ? "NaN" : Double.isInfinite(v) ? (v > 0 ? "infinite" : "-infinite") : number(v);
        return noteUnit == null || Double.isInfinite(v) ? n : noteUnit.equals("%") ? n + "%" : n + " " + noteUnit;
    }
}
