package gluelab.chart;

import gluelab.ops.MeasureKey;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.rank.Candidate;
import gluelab.tensor.DType;
import gluelab.rank.Ranking;
import gluelab.record.Row;
import gluelab.timing.Measurement;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.Summary;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The findings-doc charts, written to target/chart-samples/ so a person can look at them too. */
class ChartsTest {
    static final Path OUT = Path.of("target/chart-samples");

    static Row row(String op, String pass, String variant, long tokens, double us, double idealUs) {
        return row(op, pass, variant, tokens, us, idealUs, 0.001);
    }

    /** A row whose median has {@code noise}: over the standard rule's bound, it is noisy. */
    static Row row(String op, String pass, String variant, long tokens, double us, double idealUs, double noise) {
        double[] samples = new double[StopRule.standard().minSamples()];
        for (int i = 0; i < samples.length; i++) samples[i] = us * (0.99 + 0.02 * i / samples.length) * 1e-6;
        Measurement m = new Measurement(op, Mode.COLD, samples, Summary.of(samples), StopRule.Reason.CONVERGED, 1, 0, 0.1, 0, noise,
                StopRule.standard());
        MeasureKey key = new MeasureKey(gluelab.ops.OpId.of(op), Pass.parse(pass), Variant.parse(variant), Replay.DIRECT, tokens, DType.BF16);
        return new Row(key, "llama-3-8b", 1 << 20, 0, idealUs, "memory", m, null);
    }

    static List<Row> rows() {
        List<Row> out = new ArrayList<>();
        for (long t : new long[]{2048, 32768}) {
            double k = t / 2048.0;
            for (String pass : List.of("fwd", "bwd")) {
                out.add(row("rmsnorm", pass, "eager", t, 120 * k, 20 * k));
                out.add(row("rmsnorm", pass, "fused", t, 30 * k, 20 * k));
                out.add(row("swiglu", pass, "eager", t, 700 * k, 150 * k));
                out.add(row("swiglu", pass, "fused", t, 200 * k, 150 * k));
                out.add(row("rope", pass, "eager", t, 55 * k, 8 * k));
            }
        }
        return out;
    }

    @Test
    void titlesNameDeviceModelAndTokens() throws Exception {
        List<Row> rows = rows();
        CategoryChart base = Charts.baselines(rows, "fwd", "NVIDIA H200");
        assertEquals("Baselines (fwd): eager vs fused vs ideal (NVIDIA H200, llama-3-8b, 2,048-32,768 tokens)", base.getTitle());
        CategoryChart pct = Charts.percentOfFloor(rows, 32768, "NVIDIA H200");
        assertTrue(pct.getTitle().endsWith("(NVIDIA H200, llama-3-8b, 32,768 tokens)"), pct.getTitle());
        Ranking ranking = Ranking.of(List.of(new Candidate("swiglu", "fwd", "eager", 32768, 1, 11200, 2400, 40000),
                new Candidate("rmsnorm", "fwd", "eager", 32768, 2, 1920, 320, 40000)), 0.01);
        CategoryChart ranked = Charts.ranked(ranking, "NVIDIA H200", "llama-3-8b");
        assertTrue(ranked.getTitle().endsWith("(NVIDIA H200, llama-3-8b, 32,768 tokens)"), ranked.getTitle());
        assertEquals("Ranked candidates: gap per layer, ordered by score = gap x share (32,768 tokens)", Charts.ranked(ranking, null, null).getTitle(),
                "tokens are always known");

        Files.createDirectories(OUT);
        for (var e : java.util.Map.of("baselines_fwd", base, "pct_of_floor", pct, "ranked", ranked).entrySet()) {
            Path png = Charts.save(e.getValue(), OUT.resolve(e.getKey()));
            assertTrue(Files.size(png) > 1000);
            long svg = Files.size(OUT.resolve(e.getKey() + ".svg"));
            assertTrue(svg < 100_000, e.getKey() + ".svg is " + svg + " bytes");
        }
    }

    @Test
    void theBaselinesTitleNamesTheVariantsCharted() {
        List<Row> withTorch = new ArrayList<>();
        for (String v : List.of("torch-compile", "fused", "torch-eager")) withTorch.add(row("rmsnorm", "fwd", v, 8192, 40, 32));
        withTorch.add(row("rmsnorm", "bwd", "eager", 8192, 400, 48));
        assertEquals("Baselines (fwd): fused vs torch-eager vs torch-compile vs ideal (llama-3-8b, 8,192 tokens)",
                Charts.baselines(withTorch, "fwd", null).getTitle());
        assertEquals("Baselines (bwd): eager vs ideal (llama-3-8b, 8,192 tokens)", Charts.baselines(withTorch, "bwd", null).getTitle());
    }

    @Test
    void valueAxisShowsPlainNumbersAndDotsSitOnTheirCategory() {
        CategoryChart c = Charts.baselines(rows(), "bwd", null);
        // 7E5 on a log axis is what XChart writes without a pattern
        assertEquals("#,##0.##", c.getStyler().getYAxisDecimalPattern());
        assertEquals("700,000", new java.text.DecimalFormat(c.getStyler().getYAxisDecimalPattern()).format(7e5));
        assertTrue(c.getStyler().isOverlapped(), "scatter markers drawn at the category centre");
        // rope has no fused row: no marker rather than a 0 on a log axis
        CategorySeries fused = c.getSeriesMap().get("fused");
        assertTrue(fused.getYData().stream().anyMatch(y -> y == null));
    }

    // The rules on the findings charts; ChartGoldenTest checks every kind whole.

    static final double NOISY = 0.2;

    static boolean hollow(CategorySeries s) { return s.getMarker() instanceof HollowCircle; }

    static void render(org.knowm.xchart.internal.chartpart.Chart<?, ?> c, String name) throws Exception {
        Files.createDirectories(OUT);
        Path png = Charts.save(c, OUT.resolve(name));
        assertTrue(Files.size(png) > 1000, png + " rendered");
    }

    @Test
    void baselinesDrawNoisyRowsHollowInTheirOwnLegendEntry() throws Exception {
        List<Row> rows = new ArrayList<>(rows());
        rows.removeIf(r -> r.op().name().equals("swiglu") && r.variant() == Variant.FUSED && r.tokens() == 32768 && r.pass() == Pass.FORWARD);
        rows.add(row("swiglu", "fwd", "fused", 32768, 74205, 2400, NOISY));
        CategoryChart c = Charts.baselines(rows, "fwd", "NVIDIA H200");
        CategorySeries noisy = c.getSeriesMap().get(ChartRules.noisySeries("fused"));
        assertNotNull(noisy, "a legend entry for the noisy points: " + c.getSeriesMap().keySet());
        assertTrue(hollow(noisy));
        int at = noisy.getXData().stream().map(Object::toString).toList().indexOf("swiglu @32768");
        // 74,205 us on an axis whose sound points reach tens of ms: drawn in ms, as a table column of them is written
        assertTrue(c.getYAxisTitle().startsWith("median time (ms"), c.getYAxisTitle());
        assertEquals(74.205, ((Number) noisy.getYData().stream().toList().get(at)).doubleValue(), 0.742);
        assertNull(c.getSeriesMap().get("fused").getYData().stream().toList().get(at), "not drawn as an ordinary point too");
        assertTrue(c.getStyler().isYAxisLogarithmic());
        render(c, "baselines_noisy");
    }

    @Test
    void percentOfFloorAlwaysDrawsTheFloorLineAndGoesLogPastAHundredfoldSpan() throws Exception {
        List<Row> below = List.of(row("rmsnorm", "fwd", "eager", 2048, 120, 20), row("swiglu", "fwd", "eager", 2048, 700, 150, NOISY));
        CategoryChart c = Charts.percentOfFloor(below, 2048, "NVIDIA H200");
        CategorySeries floor = c.getSeriesMap().get(Charts.FLOOR_LINE);
        assertNotNull(floor, "the 100 line with every point below it");
        assertTrue(floor.getYData().stream().allMatch(y -> ((Number) y).doubleValue() == 100));
        assertTrue(hollow(c.getSeriesMap().get(ChartRules.noisySeries("eager"))));
        assertFalse(c.getStyler().isYAxisLogarithmic(), "16.7% to 21.4%: linear");
        render(c, "pct_of_floor_noisy");
        List<Row> wide = List.of(row("rmsnorm", "fwd", "eager", 2048, 10000, 20), row("swiglu", "fwd", "fused", 2048, 160, 150));
        CategoryChart log = Charts.percentOfFloor(wide, 2048, "NVIDIA H200");
        assertTrue(log.getStyler().isYAxisLogarithmic(), "0.2% to 94%: log");
        assertTrue(log.getYAxisTitle().contains("log scale"), log.getYAxisTitle());
    }

    @Test
    void theRankedChartShowsTheScoresFactorsAndMarksNoisyCandidates() throws Exception {
        double layer = 1_500_000;
        Candidate big = new Candidate("swiglu", "bwd", "eager", 4096, 1, 1379664.1, 133328.6, layer);
        Candidate noisy = new Candidate(new Candidate("rmsnorm", "fwd", "eager", 4096, 2, 6718.6, 92, layer).key(), 2, 6718.6, 92, layer, "n=1 < 10, noise unknown");
        Candidate small = new Candidate("rope", "fwd", "eager", 4096, 1, 900, 400, layer);
        Ranking r = Ranking.of(List.of(big, noisy, small), 0.01);
        CategoryChart c = Charts.ranked(r, "NVIDIA H200", "llama-3-8b");
        assertTrue(c.getStyler().isYAxisLogarithmic(), "gaps of 500 us to 1.2 s span > 100x");
        assertTrue(c.getTitle().contains("ordered by score = gap x share"), c.getTitle());
        CategorySeries gaps = c.getSeriesMap().get("gap");
        List<String> labels = gaps.getXData().stream().map(Object::toString).toList();
        assertEquals("swiglu bwd (92.0%)", labels.getFirst(), "the label carries the share");
        assertTrue(hollow(c.getSeriesMap().get(ChartRules.noisySeries("gap"))));
        render(c, "ranked_noisy_log");
    }

    @Test
    void manyClippedPointsAreCountedAndTheFirstTwoWrittenOut() {
        List<Point> pts = new ArrayList<>(List.of(Point.sound("a", 100.0), Point.sound("b", 120.0)));
        for (String c : List.of("c", "d", "e")) pts.add(new Point(c, 50_000.0, true));
        CategoryChart c = Plot.of("t", "x", "time", "us").series("s", pts).chart();
        assertNotNull(c.getSeriesMap().get(ChartRules.clippedSeries(ValueAxis.Side.ABOVE, 3)), c.getSeriesMap().keySet().toString());
        assertEquals("x   |   beyond the axis: c s 50,000 us (noisy); d s 50,000 us (noisy); and 1 more", c.getXAxisTitle());
    }

    @Test
    void logAxisRule() {
        assertFalse(ChartRules.logAxis(List.of(1.0, 100.0)));
        assertTrue(ChartRules.logAxis(List.of(1.0, 100.5)));
        assertFalse(ChartRules.logAxis(java.util.Arrays.asList(null, 0.0, -3.0, 50.0)), "nothing to compare on a log axis");
    }
}
