package gluelab.chart;

import gluelab.rank.Candidate;
import gluelab.rank.Ranking;
import gluelab.record.Row;
import org.knowm.xchart.*;
import org.knowm.xchart.style.Styler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;

/**
 * The charts analysts paste into findings docs, as XChart charts; save() writes PNG and SVG. Titles
 * name the device, the model and the token counts, so a chart pasted alone still says what it shows.
 */
public final class Charts {
    private Charts() {}

    /** Each candidate's gap per layer in ranking order, labelled with its share. */
    public static CategoryChart ranked(Ranking ranking) { return ranked(ranking, null, null); }

    /**
     * Each candidate's gap per layer ((measured - ideal) x count, us) in ranking order, each label
     * with its share of the layer: the two factors of the score that orders it. A noisy candidate's
     * point is hollow; a log axis where the gaps span more than {@link ChartRules#LOG_SPAN}.
     * {@code device} and {@code model} go into the title (null: left out).
     */
    public static CategoryChart ranked(Ranking ranking, String device, String model) {
        CategoryChart c = base("Ranked candidates: gap per layer, ordered by score = gap x share" + context(device, model,
                ranking.ranked().stream().map(Candidate::tokens).distinct().toList()), "candidate (share of the layer)", "gap per layer (us)");
        List<String> names = new ArrayList<>();
        List<Double> sound = new ArrayList<>(), noisy = new ArrayList<>();
        for (Candidate k : ranking.ranked()) {
            names.add(k.op() + " " + k.pass().id() + (k.count() > 1 ? " x" + k.count() : "") + String.format(java.util.Locale.ROOT, " (%.1f%%)", 100 * k.share()));
            double gap = k.gapUs();
            sound.add(k.caveat().isEmpty() ? gap : null);
            noisy.add(k.caveat().isEmpty() ? null : gap);
        }
        if (names.isEmpty()) throw new IllegalArgumentException("nothing ranked to chart");
        List<Double> all = new ArrayList<>(sound);
        all.addAll(noisy);
        dots(c, ChartRules.logAxis(all), "gap per layer (us");
        c.addSeries("gap", names, sound);
        if (noisy.stream().anyMatch(Objects::nonNull)) c.addSeries(ChartRules.noisySeries("gap"), names, noisy).setMarker(new HollowCircle());
        return c;
    }

    /** A dot plot (markers on their ticks), on a log axis when {@code log}; its axis title says so. */
    private static void dots(CategoryChart c, boolean log, String yTitleOpen) {
        c.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
        c.getStyler().setMarkerSize(10);
        c.getStyler().setOverlapped(true);
        c.getStyler().setYAxisLogarithmic(log);
        c.setYAxisTitle(yTitleOpen + (log ? ", log scale)" : ")"));
    }

    /** Each variant's time for every (op, tokens) of one pass, log scale. */
    public static CategoryChart baselines(List<Row> rows, String pass) { return baselines(rows, pass, null); }

    /**
     * Each variant's time for every (op, tokens) of one pass, log scale; the title names the variants
     * charted ("eager vs fused vs ideal", "fused vs torch-eager vs torch-compile vs ideal") and
     * {@code device}.
     */
    public static CategoryChart baselines(List<Row> rows, String pass, String device) {
        List<Row> these = rows.stream().filter(r -> r.pass().id().equals(pass)).toList();
        String variants = these.stream().map(Row::variant).distinct().sorted().map(gluelab.ops.Variant::id)
                .collect(java.util.stream.Collectors.joining(" vs "));
        CategoryChart c = base("Baselines (" + pass + "): " + (variants.isEmpty() ? "" : variants + " vs ") + "ideal"
                + context(device, model(these), these.stream().map(Row::tokens).distinct().toList()),
                "op @ tokens", "median time (us, log scale)");
        // A dot plot: XChart cannot draw bars on a log axis, and times span four decades here.
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
        c.getStyler().setMarkerSize(10);
        // Overlapped: every series' marker sits on its category's tick, not offset into a bar slot.
        c.getStyler().setOverlapped(true);
        Map<String, List<Row>> byVariant = new TreeMap<>();
        List<String> categories = new ArrayList<>();
        for (Row r : rows) {
            if (!r.pass().id().equals(pass)) continue;
            String cat = r.op() + " @" + r.tokens();
            if (!categories.contains(cat)) categories.add(cat);
            byVariant.computeIfAbsent(r.key().series(), k -> new ArrayList<>()).add(r);
        }
        if (categories.isEmpty()) throw new IllegalArgumentException("no " + pass + " rows to chart");
        for (var e : byVariant.entrySet()) {
            Map<String, Double> sound = new HashMap<>(), noisy = new HashMap<>();
            for (Row r : e.getValue()) (r.measurement().noisy().isPresent() ? noisy : sound).put(r.op() + " @" + r.tokens(), r.measuredUs());
            List<Double> ys = new ArrayList<>(), hollow = new ArrayList<>();
            for (String cat : categories) {
                ys.add(sound.get(cat)); // null: no marker (0 has no place on a log axis)
                hollow.add(noisy.get(cat));
            }
            c.addSeries(e.getKey(), categories, ys);
            if (!noisy.isEmpty()) c.addSeries(ChartRules.noisySeries(e.getKey()), categories, hollow).setMarker(new HollowCircle());
        }
        List<Double> ideal = new ArrayList<>();
        Map<String, Double> idealBy = new HashMap<>();
        for (Row r : rows) if (r.pass().id().equals(pass)) idealBy.put(r.op() + " @" + r.tokens(), r.idealUs());
        for (String cat : categories) ideal.add(idealBy.get(cat));
        c.addSeries("ideal", categories, ideal);
        return c;
    }

    /** The legend entry of the 100% line on a % of floor chart. */
    public static final String FLOOR_LINE = "100% = at the floor";

    /** Percent of the bandwidth floor per op and variant at one token count. */
    public static CategoryChart percentOfFloor(List<Row> rows, long tokens) { return percentOfFloor(rows, tokens, null); }

    /** Percent of the bandwidth floor per op and variant at one token count; {@code device} goes into the title. */
    public static CategoryChart percentOfFloor(List<Row> rows, long tokens, String device) {
        CategoryChart c = base("% of floor, 100 = at the floor" + context(device, model(rows.stream().filter(r -> r.tokens() == tokens).toList()), List.of(tokens)),
                "op", "% of floor");
        Map<String, Map<String, Double>> byVariant = new TreeMap<>();
        List<String> categories = new ArrayList<>();
        for (Row r : rows) {
            if (r.tokens() != tokens) continue;
            String cat = r.op() + " " + r.pass().id();
            if (!categories.contains(cat)) categories.add(cat);
            byVariant.computeIfAbsent(r.key().series(), k -> new HashMap<>()).put(cat, r.percentOfFloor());
        }
        if (categories.isEmpty()) throw new IllegalArgumentException("no rows at " + tokens + " tokens to chart");
        Set<String> noisyPoints = new HashSet<>();
        for (Row r : rows) if (r.tokens() == tokens && r.measurement().noisy().isPresent()) noisyPoints.add(r.key().series() + "|" + r.op() + " " + r.pass().id());
        List<Double> all = byVariant.values().stream().flatMap(m -> m.values().stream()).toList();
        dots(c, ChartRules.logAxis(all), "% of floor");
        for (var e : byVariant.entrySet()) {
            List<Double> ys = new ArrayList<>(), hollow = new ArrayList<>();
            for (String cat : categories) {
                Double v = e.getValue().get(cat);
                boolean noisy = noisyPoints.contains(e.getKey() + "|" + cat);
                ys.add(noisy ? null : v); // null: no marker
                hollow.add(noisy ? v : null);
            }
            c.addSeries(e.getKey(), categories, ys);
            if (hollow.stream().anyMatch(Objects::nonNull)) c.addSeries(ChartRules.noisySeries(e.getKey()), categories, hollow).setMarker(new HollowCircle());
        }
        // The floor is drawn whatever the data: points that all stop below it still show how far off they are.
        CategorySeries floor = c.addSeries(FLOOR_LINE, categories, categories.stream().map(x -> 100.0).toList());
        floor.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        floor.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
        floor.setLineColor(java.awt.Color.DARK_GRAY);
        return c;
    }

    /**
     * One change's before and after time per workload (a PR's chart): {@code workloads} name the
     * categories ("16k tokens", "16k tokens, graph replay"), times in us.
     */
    public static CategoryChart beforeAfter(String title, List<String> workloads, List<Double> beforeUs, List<Double> afterUs) {
        if (workloads.isEmpty() || workloads.size() != beforeUs.size() || workloads.size() != afterUs.size())
            throw new IllegalArgumentException("before/after chart needs one before and one after per workload, got "
                    + workloads.size() + " workloads, " + beforeUs.size() + " before, " + afterUs.size() + " after");
        List<Double> all = new ArrayList<>(beforeUs);
        all.addAll(afterUs);
        CategoryChart c = base(title, "workload", "time (us)");
        c.getStyler().setXAxisLabelRotation(0);
        if (ChartRules.logAxis(all)) {
            dots(c, true, "time (us");
        } else {
            c.getStyler().setLabelsVisible(true);
            c.getStyler().setLabelsFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN, 12));
            c.getStyler().setLabelsFontColorAutomaticEnabled(false);
            c.getStyler().setLabelsFontColor(java.awt.Color.BLACK);
        }
        c.addSeries("before", workloads, beforeUs);
        c.addSeries("after", workloads, afterUs);
        return c;
    }

    /** " (NVIDIA H200, llama-3-8b, 32,768 tokens)": what a chart shows, for its title. */
    public static String context(String device, String model, List<Long> tokens) {
        List<String> parts = new ArrayList<>();
        if (device != null && !device.isBlank()) parts.add(device);
        if (model != null && !model.isBlank()) parts.add(model);
        List<Long> t = tokens.stream().sorted().toList();
        if (t.size() == 1) parts.add(String.format("%,d tokens", t.getFirst()));
        else if (t.size() > 1) parts.add(String.format("%,d-%,d tokens", t.getFirst(), t.getLast()));
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }

    private static String model(List<Row> rows) {
        List<String> models = rows.stream().map(Row::model).filter(Objects::nonNull).distinct().toList();
        return String.join(", ", models);
    }

    private static CategoryChart base(String title, String x, String y) {
        CategoryChart c = new CategoryChartBuilder().width(1200).height(600).title(title).xAxisTitle(x).yAxisTitle(y).build();
        style(c);
        c.getStyler().setXAxisLabelRotation(45);
        // A rotated label ends at its tick; centred, its end sat one tick to the right.
        c.getStyler().setXAxisLabelAlignment(org.knowm.xchart.style.AxesChartStyler.TextAlignment.Right);
        c.getStyler().setOverlapped(false);
        return c;
    }

    /**
     * The look every gluelab chart shares: white, the legend right of the plot (inside it covered
     * the tallest bars), plain numbers on the value axis
     * (1,200 not 1.2E3), solid grid lines (XChart writes each dash of a dashed line into the SVG:
     * 25 KB a line).
     */
    public static void style(CategoryChart c) {
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        c.getStyler().setPlotGridLinesStroke(new java.awt.BasicStroke(1f));
        c.getStyler().setPlotGridLinesColor(new java.awt.Color(225, 225, 225));
    }

    /** Writes {@code base}.png and {@code base}.svg; returns the PNG path. */
    public static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path base) {
        try {
            Files.createDirectories(base.toAbsolutePath().getParent());
            BitmapEncoder.saveBitmapWithDPI(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG, 120);
            VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            Path svg = Path.of(base + ".svg");
            Files.writeString(svg, compactSvg(Files.readString(svg)));
            return Path.of(base + ".png");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save chart " + base + ": " + e.getMessage(), e);
        }
    }

    private static final java.util.regex.Pattern LONG_DECIMAL = java.util.regex.Pattern.compile("(-?\\d+\\.\\d)\\d+");

    /**
     * XChart draws text as glyph outlines with coordinates to 15 digits; a tenth of a pixel is
     * plenty and makes the file less than half as large.
     */
    static String compactSvg(String svg) {
        return LONG_DECIMAL.matcher(svg).replaceAll("$1");
    }

    /** PNG bytes of a chart, for notebooks. */
    public static byte[] png(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart) {
        try {
            return BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
