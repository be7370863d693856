package gluelab.tune;

import gluelab.device.OpInstance;
import gluelab.device.Tunable;
import gluelab.device.cpu.CpuDevice;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The autotuner on the CPU device (row-loop block sizes): picks, accounting, the warm cache, the error for nothing to tune. */
class TunerTest {
    @TempDir Path dir;

    static OpInstance instance(String op, Pass pass, long tokens) {
        var o = Catalogue.get(op);
        return new OpInstance(o, o.shape(Presets.LLAMA_3_8B, tokens, DType.BF16), pass, Variant.FUSED);
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
            assertNotNull(TuneChart.landscape(rs.get(0)));
        }
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
