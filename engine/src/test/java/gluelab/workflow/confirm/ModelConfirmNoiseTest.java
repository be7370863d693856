package gluelab.workflow.confirm;

import gluelab.ops.Replay;
import gluelab.timing.Measurement;
import gluelab.timing.Mode;
import gluelab.timing.QuietCheck;
import gluelab.timing.StopRule;
import gluelab.timing.Summary;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelVariantTiming;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Step 07's rule for a delta inside its noise, on the processes' timings as the harness returns them: the blind check's
 * case (one kept process each side on a loaded CPU, 8% noise, 5% faster) is inconclusive in every table, not a win.
 */
class ModelConfirmNoiseTest {
    static final QuietCheck QUIET = new QuietCheck("before", true, List.of(), Map.of());
    static final ModelFix ROPE = ModelFix.parse("rope=regions:model.Attention.rope");

    static ModelVariantTiming.Row timed(String variant, double us, double noise) {
        double[] s = {us * 1e-6, us * 1e-6, us * 1e-6};
        return new ModelVariantTiming.Row(variant, 32, Replay.DIRECT, "", new Measurement(variant, Mode.COLD, s, Summary.of(s), StopRule.Reason.CONVERGED,
                1, 0, 0, 0, noise, null), null, 0);
    }

    static ModelConfirmResult.PythonRun process(int index, double baselineUs, double baselineNoise, double fixedUs, double fixedNoise) {
        var timing = new ModelVariantTiming("llama3.py:build", null, 100 + index, List.of(timed(ModelVariantTiming.BASELINE, baselineUs, baselineNoise),
                timed("rope", fixedUs, fixedNoise)));
        return new ModelConfirmResult.PythonRun(index, 100 + index, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), timing);
    }

    static ModelConfirmResult confirm(ModelConfirmResult.PythonRun... runs) {
        return ModelConfirmation.aggregate("c", "llama3.py:build", List.of(ROPE), List.of(32L), QUIET, QUIET, List.of(runs), "no graphs on the cpu");
    }

    @Test void aDeltaInsideItsNoiseIsInconclusiveInTheTableTheTextAndTheSummary() {
        ModelConfirmResult r = confirm(process(1, 100, 0.08, 95, 0.02));
        ModelConfirmResult.Row row = r.row("rope", 32, Replay.DIRECT).orElseThrow();
        assertEquals(0.08, row.noise(), 1e-12, "the larger side's noise");
        assertTrue(row.inconclusive(), row.describe());
        assertFalse(row.win(), "5% faster inside 8% of noise is no win");
        assertTrue(row.describe().startsWith("inconclusive: -5.0% is within the noise (8.0%); 1.05x faster (95.0 vs 100.0 us"), row.describe());
        assertTrue(r.summary().contains("0 of 1 measured rows win, 1 inconclusive (within the noise)"), r.summary());
        assertTrue(r.text().lines().anyMatch(l -> l.matches("\\s+rope\\s+32 normal\\s+100\\.0\\s+95\\.0\\s+-5\\.0%\\s+8\\.0%\\s+inconclusive: .*")), r.text());
        var table = ModelConfirmTables.confirmation(r);
        assertEquals(8.0, table.doubleColumn("noise_pct").get(0), 1e-9, table.print());
        assertTrue(table.stringColumn("verdict").get(0).startsWith("inconclusive: "), table.print());

        ModelConfirmResult.Row clear = confirm(process(1, 100, 0.01, 95, 0.02)).row("rope", 32, Replay.DIRECT).orElseThrow();
        assertTrue(clear.win() && !clear.inconclusive(), clear.describe());
        assertTrue(clear.describe().startsWith("1.05x faster"), clear.describe());
    }

    @Test void theSpreadOfTheKeptProcessesIsNoiseTooAndAProcessDroppedAsSlowIsNot() {
        // Baseline kept 100 and 100.8 (within 1% of the best), 120 dropped: the side's noise is the 0.8% spread, not 20%.
        ModelConfirmResult r = confirm(process(1, 100, 0.001, 98, 0.001), process(2, 100.8, 0.001, 98, 0.001), process(3, 120, 0.001, 98, 0.001));
        ModelConfirmResult.Row row = r.row("rope", 32, Replay.DIRECT).orElseThrow();
        assertEquals(2, row.baselineN());
        assertEquals(2, row.kept());
        assertEquals(0.008, row.noise(), 1e-9, row.describe());
        assertTrue(row.win(), "-2.4% clears 0.8%: " + row.describe());
    }

    @Test void theNoiseTravelsInTheRecordAndARecordWithoutItDecidesNothing(@TempDir Path dir) throws Exception {
        ModelConfirmResult r = confirm(process(1, 100, 0.08, 95, 0.02));
        Path file = dir.resolve("model-confirm.json");
        r.save(file);
        ModelConfirmResult back = ModelConfirmResult.load(file);
        assertEquals(r.rows(), back.rows());
        assertTrue(back.row("rope", 32, Replay.DIRECT).orElseThrow().inconclusive());

        String old = Files.readString(file).replaceAll(",\\s*\"noise\"\\s*:\\s*0\\.08", "");
        assertFalse(old.contains("\"noise\" : 0.08"), old);
        Files.writeString(file, old);
        ModelConfirmResult.Row before = ModelConfirmResult.load(file).row("rope", 32, Replay.DIRECT).orElseThrow();
        assertTrue(Double.isNaN(before.noise()), "written before the noise was kept: unknown, " + before.noise());
        assertFalse(before.inconclusive());
    }
}
