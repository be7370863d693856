package gluelab.workflow.confirm;

import gluelab.calibrate.Calibration;
import gluelab.device.Device;
import gluelab.device.Devices;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;
import gluelab.model.Presets;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.timing.*;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class ConfirmationTest {
    static final TimingConfig FAST = new TimingConfig(Mode.COLD, 0.3, new StopRule(3, 0, 0.5, 0.5, 20), 2);

    static ConfirmJob tinyJob() {
        return new ConfirmJob(Presets.LLAMA_3_8B, List.of(Comparison.of("rmsnorm", 8, "eager", "fused")), DType.BF16, FAST, "cpu",
                Calibration.given("test", 50e9, 1e11));
    }

    /** Three real JVMs; the second is killed (SIGKILL) once it starts timing, and must be FAILED, never reprinted. */
    @Tag("slow") // starts confirmation JVMs
    @Test
    void threeFreshProcessesAndAKilledOneIsFailed(@TempDir Path root) throws Exception {
        ExperimentFolder ex = ExperimentFolder.open("confirm", root);
        try (Device cpu = Devices.open("cpu")) {
            ConfirmResult r = Confirmation.on(cpu).listener((i, p) -> {
                if (i == 2) p.destroyForcibly();
            }).run(ex, tinyJob());

            assertEquals(3, r.processes().size());
            ProcessRun killed = r.processes().get(1);
            assertEquals(ProcessRun.State.FAILED, killed.state());
            assertTrue(killed.reason().contains("killed"), killed.reason());
            assertTrue(killed.timed().isEmpty(), "a killed process has no numbers");
            assertTrue(r.processes().get(0).ok() && r.processes().get(2).ok(), r.processTable().print());
            assertNotEquals(r.processes().get(0).pid(), r.processes().get(2).pid(), "fresh processes");
            assertTrue(r.processes().get(0).pid() > 0);

            ConfirmedRow direct = r.row(tinyJob().comparisons().getFirst(), Replay.DIRECT).orElseThrow();
            assertTrue(direct.measured(), direct.describe());
            assertEquals(2, direct.processesOk());
            assertTrue(direct.baselineN() >= 1 && direct.baselineN() <= 2);
            ConfirmedRow graph = r.row(tinyJob().comparisons().getFirst(), Replay.GRAPH).orElseThrow();
            assertFalse(graph.measured());
            assertTrue(graph.skip().reason().contains("graph"), graph.skip().toString());

            assertTrue(r.summary().contains("FAILED") && r.summary().contains("process 2"), r.summary());
            assertTrue(r.flags().stream().anyMatch(f -> f.startsWith("process 2") && f.contains("FAILED")), r.flags().toString());
            assertTrue(r.table().stringColumn("verdict").get(0).contains("of 2 processes"), r.table().print());
            assertTrue(r.processTable().stringColumn("state").get(1).startsWith("FAILED: killed"));

            ConfirmResult loaded = Confirmation.latest(ex);
            assertEquals(r.summary(), loaded.summary());
            assertEquals(r.processes().get(0).timed().getFirst().measurement().samples().length,
                    loaded.processes().get(0).timed().getFirst().measurement().samples().length, "raw samples kept");
            assertTrue(ex.require(Step.CONFIRM).summary().contains("FAILED"));
            assertTrue(ex.devlog().read().stream().anyMatch(e -> e.kind() == gluelab.devlog.Devlog.Kind.DEAD_END && e.text().contains("process 2")));
            assertFalse(Files.exists(ex.file(Step.CONFIRM, "confirm").resolveSibling("process-2.json")));
            assertTrue(r.before().readings().containsKey("host.load_average_1m"), r.before().readings().toString());
        }
    }

    private static ProcessRun run(int index, double eager, double fused, double eagerGraph, double fusedGraph) {
        Comparison c = tinyJob().comparisons().getFirst();
        return new ProcessRun(index, 100 + index, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(
                timed(c, Variant.EAGER, Replay.DIRECT, eager), timed(c, Variant.FUSED, Replay.DIRECT, fused),
                timed(c, Variant.EAGER, Replay.GRAPH, eagerGraph), timed(c, Variant.FUSED, Replay.GRAPH, fusedGraph)));
    }

    private static Timed timed(Comparison c, Variant v, Replay r, double us) {
        double[] s = {us * 1e-6, us * 1e-6, us * 1e-6};
        return new Timed(c.op(), c.tokens(), v, r, 1, 1, new Measurement("x", Mode.COLD, s, Summary.of(s), StopRule.Reason.TIMEOUT, 1, 0, 0, 0, 0, null));
    }

    @Test
    void aKilledProcessSaysHow() {
        assertEquals("killed (SIGKILL, exit 137)", Confirmation.exitReason(137));
    }

    @Test
    void mediansComeFromTheProcessesNearTheBestAndHostTimeIsFlagged() {
        QuietCheck quiet = new QuietCheck("before", true, List.of(), Map.of());
        // Eager: 100, 100.5 within 1% of the best; 130 (an outlier) left out. Under graphs the win is gone.
        List<ProcessRun> runs = List.of(run(1, 100, 80, 50, 50.2), run(2, 130, 80.4, 50.1, 50.1), run(3, 100.5, 80.2, 50, 50.3));
        ConfirmResult r = Confirmation.aggregate("t", tinyJob(), quiet, quiet, runs, null);
        Comparison c = tinyJob().comparisons().getFirst();
        ConfirmedRow direct = r.row(c, Replay.DIRECT).orElseThrow();
        assertEquals(100.25, direct.baselineUs(), 1e-9);
        assertEquals(2, direct.baselineN());
        assertEquals(80.2, direct.candidateUs(), 1e-9);
        assertEquals(3, direct.candidateN());
        assertTrue(direct.win());
        assertEquals(List.of(c), r.hostTime());
        assertTrue(r.flags().stream().anyMatch(f -> f.startsWith("host time")), r.flags().toString());
        assertTrue(direct.describe().startsWith("1.25x faster (80.2 vs 100.2 us; n 3 and 2 of 3 processes)"), direct.describe());
    }

    @Test
    void aRowsCaveatNamesNoisyMeasurementsMissingProcessesAndANoisyDevice() {
        QuietCheck quiet = new QuietCheck("before", true, List.of(), Map.of());
        QuietCheck busy = new QuietCheck("after", false, List.of("host load average 9.1 on 2 cores"), Map.of());
        Comparison c = tinyJob().comparisons().getFirst();
        // Measurements with no rule (records before the rule) are not called noisy.
        ConfirmResult sound = Confirmation.aggregate("t", tinyJob(), quiet, quiet, List.of(run(1, 100, 80, 50, 50), run(2, 100, 80, 50, 50), run(3, 100, 80, 50, 50)), null);
        assertEquals("", sound.caveat(sound.row(c, Replay.DIRECT).orElseThrow()));
        // Two processes, a device not quiet after, and measurements that stopped on the timeout with too few samples.
        ProcessRun noisy = new ProcessRun(1, 101, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(
                ruled(c, Variant.EAGER, Replay.DIRECT, 100), ruled(c, Variant.FUSED, Replay.DIRECT, 80)));
        ConfirmResult r = Confirmation.aggregate("t", tinyJob(), quiet, busy, List.of(noisy, run(2, 100, 80, 50, 50)), null);
        String caveat = r.caveat(r.row(c, Replay.DIRECT).orElseThrow());
        assertTrue(caveat.startsWith("noisy: 2 of 4 measurements (timeout, n=3 < 10"), caveat);
        assertTrue(caveat.contains("unconfirmed: 2 of 3 processes"), caveat);
        assertTrue(caveat.endsWith("device not quiet"), caveat);
    }

    @Test
    void theProcessTableCarriesEachProcesssCaveat() {
        QuietCheck quiet = new QuietCheck("before", true, List.of(), Map.of());
        QuietCheck busy = new QuietCheck("after", false, List.of("host load average 9.1 on 2 cores"), Map.of());
        Comparison c = tinyJob().comparisons().getFirst();
        ProcessRun noisy = new ProcessRun(1, 101, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(
                ruled(c, Variant.EAGER, Replay.DIRECT, 100), ruled(c, Variant.FUSED, Replay.DIRECT, 80)));
        ConfirmResult quietRun = Confirmation.aggregate("t", tinyJob(), quiet, quiet, List.of(noisy, run(2, 100, 80, 50, 50)), null);
        var table = quietRun.processTable();
        assertTrue(table.columnNames().contains("caveat"), table.columnNames().toString());
        assertEquals("noisy: 2 of 2 measurements (timeout, n=3 < 10, ...)", table.stringColumn("caveat").get(0).replaceAll(", noise [^,)]*", ""), table.print());
        assertEquals("", table.stringColumn("caveat").get(1), "measurements with no rule are not called noisy");
        ConfirmResult busyRun = Confirmation.aggregate("t", tinyJob(), quiet, busy, List.of(noisy, run(2, 100, 80, 50, 50)), null);
        assertTrue(busyRun.processTable().stringColumn("caveat").get(0).endsWith("; device not quiet"), busyRun.processTable().print());
        assertEquals("device not quiet", busyRun.processTable().stringColumn("caveat").get(1));
    }

    /** A measurement under the standard stop rule that stopped on the timeout with 3 samples: noisy. */
    /** Blind check: a delta inside its noise (one process each side, 8% noise) read as a 5% win. */
    @Test
    void aDeltaInsideItsNoiseIsInconclusiveNotAWin() {
        QuietCheck quiet = new QuietCheck("before", true, List.of(), Map.of());
        Comparison c = tinyJob().comparisons().getFirst();
        ProcessRun one = new ProcessRun(1, 101, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(
                noisy(c, Variant.EAGER, 100, 0.08), noisy(c, Variant.FUSED, 95, 0.02)));
        ConfirmResult r = Confirmation.aggregate("t", tinyJob(), quiet, quiet, List.of(one), null);
        ConfirmedRow row = r.row(c, Replay.DIRECT).orElseThrow();
        assertEquals(0.08, row.noise(), 1e-12, "the larger side's noise");
        assertTrue(row.inconclusive());
        assertFalse(row.win(), "5% faster inside 8% of noise is no win");
        assertTrue(row.describe().startsWith("inconclusive: -5.0% is within the noise (8.0%); 1.05x faster"), row.describe());
        assertTrue(r.caveat(row).startsWith("inconclusive: -5.0% is within the noise (8.0%)"), r.caveat(row));

        ProcessRun quieter = new ProcessRun(1, 101, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(
                noisy(c, Variant.EAGER, 100, 0.01), noisy(c, Variant.FUSED, 95, 0.02)));
        ConfirmedRow clear = Confirmation.aggregate("t", tinyJob(), quiet, quiet, List.of(quieter), null).row(c, Replay.DIRECT).orElseThrow();
        assertTrue(clear.win() && !clear.inconclusive(), clear.describe());
        // Two kept processes 0.8% apart: their spread is noise too.
        ProcessRun a = new ProcessRun(1, 101, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(noisy(c, Variant.EAGER, 100, 0.001), noisy(c, Variant.FUSED, 99.5, 0.001)));
        ProcessRun b = new ProcessRun(2, 102, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(noisy(c, Variant.EAGER, 100.8, 0.001), noisy(c, Variant.FUSED, 99.5, 0.001)));
        ConfirmedRow spread = Confirmation.aggregate("t", tinyJob(), quiet, quiet, List.of(a, b), null).row(c, Replay.DIRECT).orElseThrow();
        assertEquals(0.008, spread.noise(), 1e-9, spread.describe());

        // Eager kept 1 of 2 (the other over 1% slower): the stack's conditions line names that row.
        ProcessRun slow = new ProcessRun(2, 102, ProcessRun.State.OK, "", 1, Map.of(), Map.of(), List.of(noisy(c, Variant.EAGER, 120, 0.001), noisy(c, Variant.FUSED, 99.5, 0.001)));
        ConfirmResult dropped = Confirmation.aggregate("t", tinyJob(), quiet, quiet, List.of(a, slow), "no graphs");
        assertEquals(List.of(new gluelab.workflow.stack.Conditions.Fewer("rmsnorm at 8 tokens, normal launch", 1)), dropped.fewer());
        assertEquals(List.of(), Confirmation.aggregate("t", tinyJob(), quiet, quiet, List.of(a, b), "no graphs").fewer());
    }

    private static Timed noisy(Comparison c, Variant v, double us, double noise) {
        double[] s = {us * 1e-6, us * 1e-6, us * 1e-6};
        return new Timed(c.op(), c.tokens(), v, Replay.DIRECT, 1, 1, new Measurement("x", Mode.COLD, s, Summary.of(s), StopRule.Reason.CONVERGED, 1, 0, 0, 0, noise, null));
    }

    private static Timed ruled(Comparison c, Variant v, Replay r, double us) {
        double[] s = {us * 1e-6, us * 1e-6, us * 1e-6};
        return new Timed(c.op(), c.tokens(), v, r, 1, 1, new Measurement("x", Mode.COLD, s, Summary.of(s), StopRule.Reason.TIMEOUT, 1, 0, 0, 0, 0, StopRule.standard()));
    }
}
