package gluelab.cli;

import gluelab.calibrate.Calibration;
import gluelab.backend.cpu.CpuDevice;
import gluelab.model.SpecRegistry;
import gluelab.progress.Progress;
import gluelab.sweep.PlanFile;
import gluelab.sweep.ShardRunner;
import gluelab.sweep.SweepDir;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static gluelab.cli.CliTest.assertBadInput;
import static gluelab.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.*;

class SweepCliTest {
    static final String PLAN = "{\"ops\": \"rmsnorm,cat\", \"tokens\": \"8,16\", \"passes\": \"fwd\", \"check\": 0,"
            + " \"timing\": {\"mode\": \"hot\", \"minSamples\": 3, \"minSeconds\": 0, \"timeoutSeconds\": 0.05, \"warmupSeconds\": 0}}";

    @Test
    void shardsAreListedAndBadInputIsNamedBeforeAnythingRuns(@TempDir Path tmp) throws Exception {
        Path plan = Files.writeString(tmp.resolve("plan.json"), PLAN);
        CliTest.Result r = run("sweep", "shards", plan.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("0\tllama-3-8b.rmsnorm.T8.p1") && r.out().contains("4 shards"), r.out());

        Path bad = Files.writeString(tmp.resolve("bad.json"), "{\"ops\": \"rmsnorm\", \"tokens\": \"8,x\"}");
        assertBadInput(run("sweep", "run", bad.toString(), "--devices", "cpu", "--out", tmp.resolve("s").toString()), "bad.json", "'tokens'", "'x'");
        assertFalse(Files.exists(tmp.resolve("s")), "nothing is created for a bad plan");
        assertBadInput(run("sweep", "run", plan.toString(), "--devices", "cpu,tpu"), "'tpu'");
        assertBadInput(run("sweep", "submit", plan.toString(), "--slurm", "--time", "soon", "--out", tmp.resolve("t").toString()), "--time 'soon'");
        assertBadInput(run("sweep", "submit", plan.toString(), "--slurm", "--throttle", "0"), "--throttle must be >= 1");
        assertFalse(Files.exists(tmp.resolve("t")));
        assertBadInput(run("sweep", "status", tmp.toString()), "no sweep at");
        assertBadInput(run("merge", tmp.resolve("nope").toString()), "no such folder", "nope");
    }

    /** Two collects of one sweep at once: the second fails clearly instead of racing the first (issue 23). */
    @Test
    void aSecondCollectWhileOneRunsFailsClearly(@TempDir Path tmp) {
        SweepDir dir = SweepDir.create(tmp.resolve("s"), PlanFile.parse(PLAN, "plan.json", SpecRegistry.presets()));
        try (var held = gluelab.files.FileLock.tryTake(dir.root().resolve(SweepCommand.COLLECT_LOCK))) {
            assertNotNull(held);
            CliTest.Result r = run("sweep", "collect", dir.root().toString());
            assertEquals(1, r.code(), r.toString());
            assertTrue(r.err().contains("another 'sweep collect' of " + dir.root() + " is running"), r.err());
        }
        assertFalse(run("sweep", "collect", dir.root().toString()).err().contains("another 'sweep collect'"), "the lock is released");
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void mergeNamesTheFailedShardThenMergesAll(@TempDir Path tmp) {
        SweepDir dir = SweepDir.create(tmp.resolve("s"), PlanFile.parse(PLAN, "plan.json", SpecRegistry.presets()));
        try (CpuDevice device = new CpuDevice(2)) {
            ShardRunner runner = new ShardRunner(dir, device, Calibration.given("test", 50e9, 1e11));
            for (var s : dir.shards().subList(0, 3)) runner.run(s, Progress.NONE);
            dir.markFailed(dir.shards().get(3), "the worker on cuda:1 died while measuring it (exit code 139)");
            CliTest.Result r = run("merge", dir.root().toString());
            assertEquals(1, r.code(), r.err());
            assertTrue(r.out().contains("not merged: llama-3-8b.cat.T16.p1 FAILED: the worker on cuda:1 died"), r.out());
            assertTrue(r.out().contains("merged 3 shard(s) of llama-3-8b into " + dir.merged().resolve("llama-3-8b")), r.out());
            runner.run(dir.shards().get(3), Progress.NONE);
            r = run("merge", dir.root().toString(), "--out", tmp.resolve("m").toString());
            assertEquals(0, r.code(), r.err());
            assertTrue(Files.isRegularFile(tmp.resolve("m/llama-3-8b/findings.md")));
            assertEquals(0, run("report", tmp.resolve("m/llama-3-8b").toString()).code());
        }
    }
}
