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
        double[] samples = {us * 1e-6, us * 1.01e-6, us * 0.99e-6};
        Measurement m = new Measurement(op, Mode.COLD, samples, Summary.of(samples), StopRule.Reason.CONVERGED, 1, 0, 0.1, 0, 0.001,
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
        assertEquals("Ranked candidates: measured vs ideal (32,768 tokens)", Charts.ranked(ranking).getTitle(), "tokens are always known");

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
                Charts.baselines(withTorch, "fwd").getTitle());
        assertEquals("Baselines (bwd): eager vs ideal (llama-3-8b, 8,192 tokens)", Charts.baselines(withTorch, "bwd").getTitle());
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
}
