package gluelab.report;

import gluelab.ops.MeasureKey;
import gluelab.ops.OpId;
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

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The best known kernel per instance, on rows as the H200 recorded them (docs/benchmarks.md: generated regions against the tuned catalogue). */
class BestKnownTest {
    static Row row(String op, String pass, Variant variant, Replay replay, long tokens, double us, double idealUs, double noise) {
        double[] samples = new double[StopRule.standard().minSamples()];
        for (int i = 0; i < samples.length; i++) samples[i] = us * (0.999 + 0.002 * i / samples.length) * 1e-6;
        Measurement m = new Measurement(op, Mode.COLD, samples, Summary.of(samples), StopRule.Reason.CONVERGED, 1, 0, 0.1, 0, noise, StopRule.standard());
        return new Row(new MeasureKey(OpId.of(op), Pass.parse(pass), variant, replay, tokens, DType.BF16), "llama-3-8b", 1 << 20, 0, idealUs, "memory", m, null);
    }

    static Row row(String op, String pass, Variant variant, long tokens, double us, double idealUs) {
        return row(op, pass, variant, Replay.DIRECT, tokens, us, idealUs, 0.003);
    }

    /** The H200's 32k rows of 2026-12-01: the q-norm backward's region is ahead, the forwards within a few percent either way. */
    static final List<Row> H200 = List.of(
            row("qnorm_rope_complex", "bwd", Variant.FUSED, 32768, 218.4, 193.8), row("qnorm_rope_complex", "bwd", Variant.REGION, 32768, 207.9, 193.8),
            row("qnorm_rope_complex", "fwd", Variant.FUSED, 32768, 143.8, 129.7), row("qnorm_rope_complex", "fwd", Variant.REGION, 32768, 144.3, 129.7),
            row("rmsnorm", "fwd", Variant.FUSED, 32768, 135.2, 125.8), row("rmsnorm", "fwd", Variant.REGION, 32768, 138.8, 125.8),
            row("moe_routing", "fwd", Variant.FUSED, 32768, 13.4, 1.7),
            row("rmsnorm", "fwd", Variant.EAGER, 32768, 1719.9, 125.8),
            row("qnorm_rope_complex", "bwd", Variant.REGION, Replay.GRAPH, 32768, 150.0, 193.8, 0.003));

    @Test
    void aFasterRegionIsTheBestKnownKernelAndTheLineSaysSo() {
        List<BestKnown.Line> lines = BestKnown.of(H200);
        assertEquals(List.of("qnorm_rope_complex bwd", "qnorm_rope_complex fwd", "rmsnorm fwd", "moe_routing fwd"),
                lines.stream().map(l -> l.op() + " " + l.pass().id()).toList(), "one line per instance with a fused row; eager rows make none");
        BestKnown.Line bwd = lines.get(0);
        assertEquals(Variant.REGION, bwd.best());
        assertEquals(207.9, bwd.bestUs(), 0.05, "the direct region row, not the graph replay");
        assertEquals(100 * 193.8 / 207.9, bwd.bestPercentOfFloor(), 0.05);
        assertTrue(bwd.note().contains("beats the catalogue kernel (218.4 us) by 4.8%"), bwd.note());
        assertEquals(Variant.FUSED, lines.get(1).best());
        assertTrue(lines.get(1).note().contains("within the noise"), lines.get(1).note());
        assertEquals(Variant.FUSED, lines.get(2).best(), "the region 2.7% slower: the catalogue stays");
        assertEquals("", lines.get(2).note());
        assertNull(lines.get(3).region());
        assertEquals(Variant.FUSED, lines.get(3).best());
    }

    @Test
    void aGapInsideTheNoiseIsNoWin() {
        List<Row> noisy = List.of(row("rmsnorm", "bwd", Variant.FUSED, Replay.DIRECT, 8192, 62.8, 47.2, 0.02),
                row("rmsnorm", "bwd", Variant.REGION, Replay.DIRECT, 8192, 61.0, 47.2, 0.02));
        BestKnown.Line l = BestKnown.of(noisy).getFirst();
        assertEquals(Variant.FUSED, l.best(), "2.9% apart with 2% noise on each");
    }

    @Test
    void theTableShowsTheBestAndItsNoteAndDropsTheRegionColumnWhereNoneWasMeasured() {
        var t = BestKnown.table(H200);
        assertEquals(4, t.rowCount());
        assertEquals("region", t.stringColumn("best").get(0));
        assertTrue(t.columnNames().containsAll(List.of("ideal (us)", "catalogue (us)", "region (us)", "best_pct_floor", "note")), t.columnNames().toString());
        var fusedOnly = BestKnown.table(List.of(H200.get(6)));
        assertFalse(fusedOnly.columnNames().contains("region (us)"), fusedOnly.columnNames().toString());
        assertFalse(fusedOnly.columnNames().contains("note"), fusedOnly.columnNames().toString());
    }
}
