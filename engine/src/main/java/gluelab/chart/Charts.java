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
import java.nio.file.StandardCopyOption;
import java.util.*;

/**
 * The charts analysts paste into findings docs, as XChart charts drawn by {@link Plot} (the
 * {@link ChartRules}); save() writes PNG and SVG. Titles name the device, the model and the token
 * counts, so a chart pasted alone still says what it shows.
 */
public final class Charts {
    private Charts() {}

    /**
     * Each candidate's gap per layer ((measured - ideal) x count, us) in ranking order, each label
     * with its share of the layer: the two factors of the score that orders it. A noisy candidate's
     * point is hollow. {@code device} and {@code model} go into the title (null: left out).
     */
    public static CategoryChart ranked(Ranking ranking, String device, String model) {
        if (ranking.ranked().isEmpty()) throw new IllegalArgumentException("nothing ranked to chart");
        List<Point> gaps = new ArrayList<>();
        for (Candidate k : ranking.ranked()) {
            String name = k.op() + " " + k.pass().id() + (k.count() > 1 ? " x" + k.count() : "") + String.format(Locale.ROOT, " (%.1f%%)", 100 * k.share());
            gaps.add(new Point(name, k.gapUs(), !k.caveat().isEmpty()));
        }
        return Plot.times("Ranked candidates: gap per layer, ordered by score = gap x share"
                        + context(device, model, ranking.ranked().stream().map(Candidate::tokens).distinct().toList()),
                "candidate (share of the layer)", "gap per layer").series("gap", gaps).chart();
    }

    /**
     * Each variant's time for every (op, tokens) of one pass, beside the ideal; the title names the
     * variants charted ("eager vs fused vs ideal", "fused vs torch-eager vs torch-compile vs ideal")
     * and {@code device}. Times usually span decades, so this is a dot plot (XChart cannot draw bars
     * on a log axis).
     */
    public static CategoryChart baselines(List<Row> rows, String pass, String device) {
        List<Row> these = rows.stream().filter(r -> r.pass().id().equals(pass)).toList();
        if (these.isEmpty()) throw new IllegalArgumentException("no " + pass + " rows to chart");
        String variants = these.stream().map(Row::variant).distinct().sorted().map(gluelab.ops.Variant::id)
                .collect(java.util.stream.Collectors.joining(" vs "));
        Plot plot = Plot.times("Baselines (" + pass + "): " + variants + " vs ideal"
                + context(device, model(these), these.stream().map(Row::tokens).distinct().toList()), "op @ tokens", "median time");
        Map<String, List<Point>> byVariant = new TreeMap<>();
        Map<String, Point> ideal = new LinkedHashMap<>();
        for (Row r : these) {
            String cat = r.op() + " @" + r.tokens();
            byVariant.computeIfAbsent(r.key().series(), k -> new ArrayList<>()).add(new Point(cat, r.measuredUs(), r.measurement().noisy().isPresent()));
            ideal.putIfAbsent(cat, Point.sound(cat, r.idealUs()));
        }
        plot.categories(List.copyOf(ideal.keySet()));
        byVariant.forEach(plot::series);
        return plot.series("ideal", List.copyOf(ideal.values())).chart();
    }

    /** The legend entry of the 100% line on a % of floor chart. */
    public static final String FLOOR_LINE = "100% = at the floor";

    /**
     * Percent of the bandwidth floor per op and variant at one token count; {@code device} goes
     * into the title. The 100% line is drawn whatever the data: points that all stop below it
     * still show how far off they are.
     */
    public static CategoryChart percentOfFloor(List<Row> rows, long tokens, String device) {
        List<Row> these = rows.stream().filter(r -> r.tokens() == tokens).toList();
        if (these.isEmpty()) throw new IllegalArgumentException("no rows at " + tokens + " tokens to chart");
        Map<String, List<Point>> byVariant = new TreeMap<>();
        for (Row r : these) {
            byVariant.computeIfAbsent(r.key().series(), k -> new ArrayList<>())
                    .add(new Point(r.op() + " " + r.pass().id(), r.percentOfFloor(), r.measurement().noisy().isPresent()));
        }
        Plot plot = Plot.of("% of floor, 100 = at the floor" + context(device, model(these), List.of(tokens)), "op", "% of floor", null).noteUnit("%")
                .categories(these.stream().map(r -> r.op() + " " + r.pass().id()).distinct().toList());
        byVariant.forEach(plot::series);
        return plot.line(FLOOR_LINE, 100).chart();
    }

    /** One workload's time before and after a change; noisy when either measurement's caveat says so. */
    public record Workload(String name, double beforeUs, double afterUs, boolean noisy) {
        public static Workload sound(String name, double beforeUs, double afterUs) { return new Workload(name, beforeUs, afterUs, false); }
    }

    /**
     * One change's before and after time per workload (a PR's chart): bars with value labels, or
     * dots where the rules call for a log axis, a noisy workload or a clipped point.
     */
    public static CategoryChart beforeAfter(String title, List<Workload> workloads) { return beforeAfter(title, workloads, 0); }

    /** {@link #beforeAfter(String, List)} with the workload labels rotated by {@code labelRotation} degrees (long names). */
    public static CategoryChart beforeAfter(String title, List<Workload> workloads, int labelRotation) {
        if (workloads.isEmpty()) throw new IllegalArgumentException("before/after chart needs at least one workload: " + title);
        return Plot.times(title, "workload", "time").bars().labelRotation(labelRotation)
                .series("before", workloads.stream().map(w -> new Point(w.name(), w.beforeUs(), w.noisy())).toList())
                .series("after", workloads.stream().map(w -> new Point(w.name(), w.afterUs(), w.noisy())).toList())
                .chart();
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

    /**
     * Writes {@code base}.png and {@code base}.svg, each whole or not at all (drawn to temp files
     * beside them, then renamed): a full disk leaves no half image. Returns the PNG path.
     */
    public static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path base) {
        Path dir = base.toAbsolutePath().getParent();
        String tmp = dir.resolve("." + base.getFileName() + "." + Long.toUnsignedString(System.nanoTime(), 36) + ".tmp").toString();
        Path png = Path.of(base + ".png"), svg = Path.of(base + ".svg"), tmpPng = Path.of(tmp + ".png"), tmpSvg = Path.of(tmp + ".svg");
        try {
            try {
                Files.createDirectories(dir);
                BitmapEncoder.saveBitmapWithDPI(chart, tmp, BitmapEncoder.BitmapFormat.PNG, 120);
                var vector = new java.io.ByteArrayOutputStream();
                VectorGraphicsEncoder.saveVectorGraphic(chart, vector, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
                gluelab.files.AtomicFiles.write(tmpSvg, compactSvg(vector.toString(java.nio.charset.StandardCharsets.UTF_8)));
                Files.move(tmpPng, png, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                Files.move(tmpSvg, svg, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return png;
            } finally {
                Files.deleteIfExists(tmpPng);
                Files.deleteIfExists(tmpSvg);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save chart " + base + ": " + gluelab.files.IoErrors.reason(e), e);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("cannot save chart " + base + ": " + gluelab.files.IoErrors.reason(e.getCause()), e.getCause());
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
