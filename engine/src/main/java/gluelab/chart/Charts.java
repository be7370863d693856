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

/** The charts analysts paste into findings docs, as XChart charts; save() writes PNG and SVG. */
public final class Charts {
    private Charts() {}

    /** Measured vs ideal per candidate, in ranking order. */
    public static CategoryChart ranked(Ranking ranking) {
        CategoryChart c = base("Ranked candidates: measured vs ideal", "candidate", "time per layer (us)");
        List<String> names = new ArrayList<>();
        List<Double> measured = new ArrayList<>(), ideal = new ArrayList<>();
        for (Candidate k : ranking.ranked()) {
            names.add(k.op() + " " + k.pass() + (k.count() > 1 ? " x" + k.count() : ""));
            measured.add(k.measuredUs() * k.count());
            ideal.add(k.idealUs() * k.count());
        }
        if (names.isEmpty()) throw new IllegalArgumentException("nothing ranked to chart");
        c.addSeries("measured", names, measured);
        c.addSeries("ideal", names, ideal);
        return c;
    }

    /** Eager vs fused time for every (op, tokens) of one pass, log scale. */
    public static CategoryChart baselines(List<Row> rows, String pass) {
        CategoryChart c = base("Baselines (" + pass + "): eager vs fused vs ideal", "op @ tokens", "median time (us, log scale)");
        // A dot plot: XChart cannot draw bars on a log axis, and times span four decades here.
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
        c.getStyler().setMarkerSize(10);
        Map<String, List<Row>> byVariant = new TreeMap<>();
        List<String> categories = new ArrayList<>();
        for (Row r : rows) {
            if (!r.pass().equals(pass)) continue;
            String cat = r.op() + " @" + r.tokens();
            if (!categories.contains(cat)) categories.add(cat);
            byVariant.computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r);
        }
        if (categories.isEmpty()) throw new IllegalArgumentException("no " + pass + " rows to chart");
        for (var e : byVariant.entrySet()) {
            Map<String, Double> values = new HashMap<>();
            for (Row r : e.getValue()) values.put(r.op() + " @" + r.tokens(), r.measuredUs());
            List<Double> ys = new ArrayList<>();
            for (String cat : categories) ys.add(values.getOrDefault(cat, 0.0));
            c.addSeries(e.getKey(), categories, ys);
        }
        List<Double> ideal = new ArrayList<>();
        Map<String, Double> idealBy = new HashMap<>();
        for (Row r : rows) if (r.pass().equals(pass)) idealBy.put(r.op() + " @" + r.tokens(), r.idealUs());
        for (String cat : categories) ideal.add(idealBy.get(cat));
        c.addSeries("ideal", categories, ideal);
        return c;
    }

    /** Percent of the bandwidth floor per op and variant at one token count. */
    public static CategoryChart percentOfFloor(List<Row> rows, long tokens) {
        CategoryChart c = base("% of floor at " + tokens + " tokens (100 = at the floor)", "op", "% of floor");
        Map<String, Map<String, Double>> byVariant = new TreeMap<>();
        List<String> categories = new ArrayList<>();
        for (Row r : rows) {
            if (r.tokens() != tokens) continue;
            String cat = r.op() + " " + r.pass();
            if (!categories.contains(cat)) categories.add(cat);
            byVariant.computeIfAbsent(r.variant(), k -> new HashMap<>()).put(cat, r.percentOfFloor());
        }
        if (categories.isEmpty()) throw new IllegalArgumentException("no rows at " + tokens + " tokens to chart");
        for (var e : byVariant.entrySet()) {
            List<Double> ys = new ArrayList<>();
            for (String cat : categories) ys.add(e.getValue().getOrDefault(cat, 0.0));
            c.addSeries(e.getKey(), categories, ys);
        }
        return c;
    }

    private static CategoryChart base(String title, String x, String y) {
        CategoryChart c = new CategoryChartBuilder().width(1200).height(600).title(title).xAxisTitle(x).yAxisTitle(y).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        c.getStyler().setXAxisLabelRotation(45);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setOverlapped(false);
        return c;
    }

    /** Writes {@code base}.png and {@code base}.svg; returns the PNG path. */
    public static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path base) {
        try {
            Files.createDirectories(base.toAbsolutePath().getParent());
            BitmapEncoder.saveBitmapWithDPI(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG, 120);
            VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            return Path.of(base + ".png");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save chart " + base + ": " + e.getMessage(), e);
        }
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
