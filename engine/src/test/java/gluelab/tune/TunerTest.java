package gluelab.tune;

import gluelab.chart.TuneChart;
import gluelab.device.OpInstance;
import gluelab.device.Tunable;
import gluelab.backend.cpu.CpuDevice;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The autotuner on the CPU device (row-loop block sizes): picks, accounting, the warm cache, the error for nothing to tune. */
@Tag("slow") // times every config of real kernels on the CPU
class TunerTest {
    @TempDir Path dir;

    static OpInstance instance(String op, Pass pass, long tokens) {
        var o = Catalogue.parse(op);
        return new OpInstance(o, o.shape(Presets.LLAMA_3_8B, tokens, DType.BF16), pass, Variant.FUSED);
    }

    @Test
    void benchOnTheCpuTunesNothingUnlessAskedAndACpuTuneIsCappedPerKernel() {
        try (CpuDevice cpu = new CpuDevice(2, dir)) {
            assertFalse(Tuning.tunesBeforeBench(cpu, false), "bench --device cpu tunes nothing by default");
            assertTrue(Tuning.tunesBeforeBench(cpu, true), "--tune asks for it");
            assertTrue(Tuning.benchTunes(false, false));
            assertFalse(Tuning.benchTunes(false, true));
            var both = assertThrows(IllegalArgumentException.class, () -> Tuning.benchTunes(true, true));
            assertTrue(both.getMessage().contains("--tune and --no-tune"), both.getMessage());
            double cap = cpu.tunable().orElseThrow().timingSecondsPerKernel();
            assertTrue(cap <= 5, "a few seconds per kernel: " + cap);
            // Every config is timed (halving keeps a measurement of each, the pick among the finalists).
            TuneResult r = new Tuner(cpu, Tuner.Options.defaults()).tune(instance("rmsnorm", Pass.FORWARD, 256), Progress.NONE);
            assertEquals(r.configs(), r.results().size());
            assertTrue(r.results().stream().allMatch(ConfigResult::valid), r.results().toString());
        }
    }

    @Test
    void briefRoundsAreShorterAndLooserThanTheFullRuleAndGrowEachRound() {
        var full = Tuner.Options.defaults().timing().stop();
        var r0 = Tuner.briefRule(full, 0);
        var r1 = Tuner.briefRule(full, 1);
        assertTrue(r0.minSamples() < full.minSamples() && r0.timeoutSeconds() < full.timeoutSeconds() && r0.maxNoise() >= full.maxNoise());
        assertTrue(r1.minSamples() > r0.minSamples() && r1.timeoutSeconds() > r0.timeoutSeconds());
        assertTrue(Tuner.briefRule(full, 10).timeoutSeconds() <= full.timeoutSeconds());
    }

    @Test
    void aWarmCacheTunesAndCompilesNothing() {
        try (CpuDevice cpu = new CpuDevice(2, dir)) {
            OpInstance in = instance("rmsnorm", Pass.BACKWARD, 64);
            Tuner tuner = new Tuner(cpu, Tuner.Options.defaults());
            TuneResult first = tuner.tune(in, Progress.NONE);
            assertFalse(first.fromCache());
            assertEquals(8, first.configs());
            assertEquals(8, first.results().size());
            assertTrue(first.results().stream().allMatch(ConfigResult::valid), first.results().toString());
            assertTrue(first.benchmarkSeconds() > 0);
            assertTrue(first.checkMaxUlp() <= 2.0, "pick checked against fp64: " + first.checkMaxUlp());
            assertNotNull(first.runnerUp());
            assertNotEquals(first.pick(), first.runnerUp());
            assertTrue(first.pickUs() <= first.runnerUpUs());

            // A new device and tuner over the same folder: the pick comes from disk, nothing is timed.
            try (CpuDevice again = new CpuDevice(2, dir)) {
                TuneResult second = new Tuner(again, Tuner.Options.defaults()).tune(in, Progress.NONE);
                assertTrue(second.fromCache());
                assertEquals(first.pick(), second.pick());
                Tunable t = again.tunable().orElseThrow();
                assertEquals(first.pick(), t.chosen(in).orElseThrow().id(), "the device's plain prepare uses the pick");
            }
        }
    }

    @Test
    void serialAndParallelAccountTheirCompileAndBenchmarkTime() {
        try (CpuDevice cpu = new CpuDevice(2, dir)) {
            OpInstance in = instance("swiglu", Pass.FORWARD, 16);
            List<TuneResult> rs = List.of(new Tuner(cpu, Tuner.Options.defaults()).tune(in, Progress.NONE),
                    new Tuner(cpu, Tuner.Options.defaults().withSerial(true).withForce(true)).tune(in, Progress.NONE));
            assertEquals("serial", rs.get(1).mode());
            assertTrue(rs.get(0).mode().startsWith("parallel"));
            String table = Tuning.table(rs);
            assertTrue(table.contains("swiglu/fwd T=16"), table);
            assertTrue(table.contains("tuned now: 16 configs"), table);
            assertTrue(table.contains("compiled: one at a time in this process"), table);
            assertNotNull(TuneChart.landscape(rs.get(0)));
        }
    }

    @Test
    void aCompileBatchSharedByTuningsCountsItsWallOnce() {
        String how = "one batch of 20 configs for 2 tunings on 16 compile worker processes";
        List<TuneResult> rs = List.of(batched("rmsnorm", 12, how), batched("cat", 8, how));
        String table = Tuning.table(rs);
        assertTrue(table.contains("tuned now: 20 configs, compile wall 0.80 s, per-config compile sum 3.00 s"), table);
        assertTrue(table.contains("0.80*"), table);
        assertTrue(table.contains("compiled: " + how + "\n"), table);
        assertEquals(1, table.lines().filter(l -> l.startsWith("compiled: ")).count(), table);
    }

    /** A tuning compiled in a batch of two: the batch's 0.8 s wall, 1.5 s of per-config compile time. */
    private static TuneResult batched(String op, int configs, String how) {
        return new TuneResult(op, "fwd", "bf16", 8192, "", "", op + "_k", "parallel x16 procs", configs, 0.8, 1.5, configs, 2.0,
                "a", "b", 10, 11, 0, 0, List.of(), 16, 2, how, false);
    }

    @Test
    void aKernelWithOneConfigIsLeftAlone() {
        try (CpuDevice cpu = new CpuDevice(2, dir)) {
            OpInstance cat = instance("cat", Pass.FORWARD, 16);
            Tuner tuner = new Tuner(cpu, Tuner.Options.defaults());
            assertFalse(tuner.tunable(cat));
            var e = assertThrows(IllegalArgumentException.class, () -> tuner.tune(cat, Progress.NONE));
            assertTrue(e.getMessage().contains("cat/fwd/fused") && e.getMessage().contains("nothing to tune"), e.getMessage());
        }
    }
}
