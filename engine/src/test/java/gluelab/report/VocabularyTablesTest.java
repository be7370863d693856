package gluelab.report;

import gluelab.ops.MeasureKey;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.record.Row;
import gluelab.tensor.DType;
import gluelab.timing.Measurement;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.Summary;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Tables built on the column vocabulary: one unit per column, bytes in binary units, a noisy row's flag first. */
class VocabularyTablesTest {
    static Row row(String op, String variant, double us, double noise, long peakBytes) {
        double[] samples = new double[StopRule.standard().minSamples()];
        java.util.Arrays.fill(samples, us * 1e-6);
        Measurement m = new Measurement(op, Mode.COLD, samples, Summary.of(samples), StopRule.Reason.CONVERGED, 1, peakBytes, 0.1, 0, noise,
                StopRule.standard(), 1);
        MeasureKey key = new MeasureKey(gluelab.ops.OpId.of(op), Pass.BACKWARD, Variant.parse(variant), Replay.DIRECT, 4096, DType.BF16);
        return new Row(key, "llama-3-8b", 1 << 20, 0, 200, "memory", m, null);
    }

    @Test void theResultsTableScalesEachColumnAndLeadsWithTheNoisyFlag() {
        List<Row> rows = List.of(row("swiglu", "eager", 1_379_664.1, 0.001, 4_831_838_208L), row("swiglu", "fused", 133_328.6, 0.2, 67_108_864L));
        Table t = Tables.results(rows);
        assertEquals("noisy", t.columnNames().getFirst(), "a noisy row's flag leads: " + t.columnNames());
        assertTrue(t.stringColumn("noisy").get(1).startsWith("noise 20.0% >"), t.stringColumn("noisy").get(1));
        assertEquals(List.of(1380.0, 133.3), t.doubleColumn("median (ms)").asList(), "not 1379664.1 us");
        assertEquals(List.of(200.0, 200.0), t.doubleColumn("ideal (us)").asList(), "each column its own unit");
        assertEquals(List.of(4.5, 0.0625), t.doubleColumn("peak_mem (GiB)").asList());
        assertFalse(t.columnNames().stream().anyMatch(n -> n.contains("MiB") || n.endsWith("_us")), "one spelling per column: " + t.columnNames());
    }

    @Test void baselinesShowTheNoisyColumnOnlyWhenARowIsNoisy() {
        Table sound = Tables.baselines(List.of(row("cat", "eager", 30, 0.001, 0), row("cat", "fused", 13, 0.001, 0)));
        assertFalse(sound.columnNames().contains("noisy"), sound.columnNames().toString());
        assertFalse(sound.columnNames().contains("eager_graph (us)"), "no graph rows, no graph columns");
        Table noisy = Tables.baselines(List.of(row("cat", "eager", 30, 0.001, 0), row("cat", "fused", 13, 0.3, 0)));
        assertEquals("noisy", noisy.columnNames().getFirst());
        assertTrue(noisy.stringColumn("noisy").get(0).startsWith("fused: noise"), noisy.stringColumn("noisy").get(0));
        assertEquals(2.31, noisy.doubleColumn("speedup").get(0));
    }

    @Test void theRunComparisonWritesEachMedianColumnInItsOwnUnitAndCarriesEitherSidesNoise() {
        var c = MedianComparison.of(List.of(row("rmsnorm", "fused", 20_500, 0.3, 0)), List.of(row("rmsnorm", "fused", 9, 0.001, 0)), 0.02);
        Table t = c.overTable();
        assertEquals("noisy", t.columnNames().getFirst(), t.columnNames().toString());
        assertTrue(t.stringColumn("noisy").get(0).startsWith("A: noise"), t.stringColumn("noisy").get(0));
        assertEquals(20.5, t.doubleColumn("median_a (ms)").get(0));
        assertEquals(9.0, t.doubleColumn("median_b (us)").get(0), "each column its own unit");
        assertEquals(227677.78, t.doubleColumn("diff_pct").get(0));
    }
}
