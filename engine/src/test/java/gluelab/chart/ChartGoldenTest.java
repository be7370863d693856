package gluelab.chart;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Golden tests of every chart kind (ChartSamples): each sample's structural description
 * (ChartDescription: series, markers, axis, title, the clip note) must equal its golden file in
 * src/test/resources/gluelab/chart/golden/, and a pixel probe finds the clip markers drawn at their
 * edge of the rendered image. Each sample is rendered to target/chart-samples/; with
 * {@code -Dgluelab.charts.docs=DIR} also to DIR (bin/refresh-chart-docs: docs/charts/, linked from
 * docs/user-guide.md); {@code -Dgluelab.golden.update=true} rewrites the golden files (read the
 * diff before committing).
 */
class ChartGoldenTest {
    static final Path GOLDEN = Path.of("src/test/resources/gluelab/chart/golden");
    static final Path DOCS = Path.of("../docs/charts");

    @ParameterizedTest
    @EnumSource(ChartSamples.class)
    void eachKindMatchesItsGoldenDescription(ChartSamples sample) throws Exception {
        String described = ChartDescription.of(sample.chart());
        Path golden = GOLDEN.resolve(sample.fileName() + ".txt");
        if (Boolean.getBoolean("gluelab.golden.update")) Files.writeString(golden, described);
        assertTrue(Files.exists(golden), golden + " is missing: run with -Dgluelab.golden.update=true and read what it wrote");
        assertEquals(Files.readString(golden), described, sample + " no longer draws what " + golden + " says");
        render(sample);
    }

    static void render(ChartSamples sample) throws Exception {
        Path png = Charts.save(sample.chart(), Path.of("target/chart-samples").resolve(sample.fileName()));
        assertTrue(Files.size(png) > 1000);
        String docs = System.getProperty("gluelab.charts.docs");
        if (docs != null && !docs.isBlank()) {
            Files.createDirectories(Path.of(docs));
            BitmapEncoder.saveBitmapWithDPI(sample.chart(), Path.of(docs).resolve(sample.fileName()).toString(), BitmapEncoder.BitmapFormat.PNG, 120);
        }
    }

    // The rules, per kind, stated outright (the golden files hold them too, with everything else).

    static CategorySeries series(CategoryChart c, String name) {
        CategorySeries s = c.getSeriesMap().get(name);
        assertNotNull(s, "no series " + name + " in " + c.getSeriesMap().keySet());
        return s;
    }

    static String clipped(ValueAxis.Side side, int n) { return ChartRules.clippedSeries(side, n); }

    @Test
    void baselinesHollowTheNoisyClipTheGlitchAndGoLog() {
        CategoryChart c = ChartSamples.BASELINES.chart();
        assertInstanceOf(HollowCircle.class, series(c, ChartRules.noisySeries("fused")).getMarker());
        assertEquals(1, series(c, ChartRules.noisySeries("fused")).getYData().stream().filter(y -> y != null).count(), "the 55 us noisy row, in range");
        assertTrue(c.getStyler().isYAxisLogarithmic());
        assertTrue(c.getXAxisTitle().matches(".*beyond the axis: swiglu @32768 fused 1,378\\.[0-9]+ ms \\(noisy\\)"), c.getXAxisTitle());
        assertTrue(c.getStyler().getYAxisMax() < 1_379_664, "the glitch does not stretch the axis");
        assertEquals(c.getTitle(), "Baselines (fwd): eager vs fused vs ideal (NVIDIA H200, llama-3-8b, 2,048-32,768 tokens)");
        probeClipMarkers(c, ValueAxis.Side.ABOVE);
    }

    @Test
    void percentOfFloorDrawsTheFloorLineHollowsAndClips() {
        CategoryChart c = ChartSamples.PCT_OF_FLOOR.chart();
        assertTrue(series(c, Charts.FLOOR_LINE).getYData().stream().allMatch(y -> ((Number) y).doubleValue() == 100));
        assertInstanceOf(HollowCircle.class, series(c, ChartRules.noisySeries("eager")).getMarker());
        series(c, clipped(ValueAxis.Side.ABOVE, 1));
        assertFalse(c.getStyler().isYAxisLogarithmic(), "14.5% to 100% once the 4,800% glitch is clipped: linear");
        probeClipMarkers(c, ValueAxis.Side.ABOVE);
        CategoryChart log = ChartSamples.PCT_OF_FLOOR_LOG.chart();
        assertTrue(log.getStyler().isYAxisLogarithmic(), "0.2% to 100%: log");
        assertTrue(log.getYAxisTitle().contains("log scale"));
        assertInstanceOf(HollowCircle.class, series(log, ChartRules.noisySeries("eager")).getMarker(), "0.004%, drawn: only far above is clipped");
    }

    @Test
    void rankedHollowsNoisyCandidatesAndClipsTheGlitchThatRanksFirst() {
        CategoryChart c = ChartSamples.RANKED.chart();
        assertTrue(c.getStyler().isYAxisLogarithmic());
        assertTrue(c.getTitle().contains("ordered by score = gap x share"), c.getTitle());
        assertInstanceOf(HollowCircle.class, series(c, ChartRules.noisySeries("gap")).getMarker());
        assertTrue(c.getXAxisTitle().contains("cat fwd"), c.getXAxisTitle());
        probeClipMarkers(c, ValueAxis.Side.ABOVE);
    }

    @Test
    void beforeAfterIsBarsWithValueLabelsUntilARuleCallsForDots() {
        CategoryChart bars = ChartSamples.BEFORE_AFTER.chart();
        assertTrue(bars.getStyler().isLabelsVisible(), "value labels on bars");
        assertEquals(CategorySeries.CategorySeriesRenderStyle.Bar, bars.getStyler().getDefaultSeriesRenderStyle());
        assertFalse(bars.getStyler().isYAxisLogarithmic());
        CategoryChart noisy = ChartSamples.BEFORE_AFTER_NOISY.chart();
        assertEquals(CategorySeries.CategorySeriesRenderStyle.Scatter, noisy.getStyler().getDefaultSeriesRenderStyle(), "noisy points cannot be hollow bars");
        assertTrue(noisy.getStyler().isYAxisLogarithmic());
        assertInstanceOf(HollowCircle.class, series(noisy, ChartRules.noisySeries("after")).getMarker());
        assertTrue(ChartDescription.annotations(noisy).stream().anyMatch(a -> a instanceof ValueLabels v
                && v.labels().stream().map(ValueLabels.Label::text).toList().containsAll(List.of("10.4", "0.941", "1,380"))), "dots keep their values, in the axis's unit (ms)");
        series(noisy, clipped(ValueAxis.Side.ABOVE, 1));
        probeClipMarkers(noisy, ValueAxis.Side.ABOVE);
    }

    @Test
    void familiesAreBarsAndAFamilyMissingFromBIsClippedOnALogAxis() {
        CategoryChart bars = ChartSamples.FAMILIES.chart();
        assertTrue(bars.getStyler().isLabelsVisible());
        assertTrue(bars.getTitle().endsWith("(NVIDIA H200)"), bars.getTitle());
        CategoryChart log = ChartSamples.FAMILIES_LOG.chart();
        assertTrue(log.getStyler().isYAxisLogarithmic(), "3.1 us to 42 ms");
        assertTrue(log.getXAxisTitle().contains("cast B: compiled.json 0 ms"), log.getXAxisTitle());
        probeClipMarkers(log, ValueAxis.Side.BELOW);
    }

    @Test
    void tuneHollowsBrieflyMeasuredConfigsAndNamesTheDevice() {
        CategoryChart c = ChartSamples.TUNE.chart();
        assertTrue(c.getTitle().endsWith("(NVIDIA H200)"), c.getTitle());
        CategorySeries hollow = series(c, ChartRules.noisySeries("config"));
        assertEquals(2, hollow.getYData().stream().filter(y -> y != null).count(), "the two 3-sample configs");
        assertTrue(c.getStyler().isYAxisLogarithmic(), "196 us to 31 ms");
        assertFalse(c.getXAxisTitle().contains("beyond"), "nothing clipped");
        assertNotNull(series(c, "pick"));
    }

    @Test
    void regionsDrawTheFloorLineAndNameTheDevice() {
        CategoryChart c = ChartSamples.REGIONS.chart();
        assertTrue(c.getTitle().contains("NVIDIA H200"), c.getTitle());
        series(c, Charts.FLOOR_LINE);
        assertInstanceOf(HollowCircle.class, series(c, ChartRules.noisySeries("eager")).getMarker());
    }

    /**
     * Pixel probe: the clip markers' colour (used by nothing else) is drawn, inside the image, at
     * the edge the points went past: the top third for points above, the bottom half for points below.
     */
    static void probeClipMarkers(CategoryChart c, ValueAxis.Side side) {
        BufferedImage img = BitmapEncoder.getBufferedImage(c);
        int rgb = Plot.CLIPPED.getRGB(), found = 0, minY = Integer.MAX_VALUE, maxY = -1;
        for (int y = 0; y < img.getHeight(); y++)
            for (int x = 0; x < img.getWidth(); x++)
                if (img.getRGB(x, y) == rgb) { found++; minY = Math.min(minY, y); maxY = Math.max(maxY, y); }
        assertTrue(found > 10, "clip markers drawn: " + found + " pixels of their colour");
        // The legend's own triangle sits right of the plot; the plot's markers decide the extreme rows.
        if (side == ValueAxis.Side.ABOVE) assertTrue(minY < img.getHeight() / 3, "a marker at the top: first row " + minY + " of " + img.getHeight());
        else assertTrue(maxY > img.getHeight() / 2, "a marker at the bottom: last row " + maxY + " of " + img.getHeight());
    }

    /** docs/charts/ holds a PNG of every kind, each linked from the user guide, and those that clip show it. */
    @Test
    void docsShowEveryKind() throws Exception {
        // Redrawing (bin/refresh-chart-docs): draw them all first, whichever test runs first.
        if (System.getProperty("gluelab.charts.docs") != null) for (ChartSamples s : ChartSamples.values()) render(s);
        String guide = Files.readString(Path.of("../docs/user-guide.md"));
        for (ChartSamples s : ChartSamples.values()) {
            Path png = DOCS.resolve(s.fileName() + ".png");
            assertTrue(Files.exists(png), png + " is missing: regenerate (docs/user-guide.md, 'What every chart shows')");
            assertTrue(guide.contains("charts/" + s.fileName() + ".png"), "docs/user-guide.md does not link " + png);
            boolean clips = s.chart().getSeriesMap().keySet().stream().anyMatch(n -> n.startsWith("beyond the axis"));
            BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
            boolean shown = false;
            for (int y = 0; y < img.getHeight() && !shown; y++)
                for (int x = 0; x < img.getWidth() && !shown; x++) shown = img.getRGB(x, y) == Plot.CLIPPED.getRGB();
            assertEquals(clips, shown, png + (clips ? " shows no clip marker" : " shows a clip marker its sample does not draw") + ": regenerate it");
        }
        List<String> stale = new java.util.ArrayList<>();
        try (var files = Files.list(DOCS)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".png"))
                    .filter(n -> java.util.Arrays.stream(ChartSamples.values()).noneMatch(s -> n.equals(s.fileName() + ".png"))).forEach(stale::add);
        }
        assertEquals(List.of(), stale, "PNGs in docs/charts/ that no sample draws");
    }
}
