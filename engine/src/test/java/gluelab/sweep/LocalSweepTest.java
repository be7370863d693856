package gluelab.sweep;

import gluelab.lab.SweepHandle;
import gluelab.model.SpecRegistry;
import gluelab.files.Json;
import gluelab.record.RecordStore;
import gluelab.record.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The multi-device path on the CPU: real worker processes (two on the CPU, as there would be one
 * per GPU), one of them killed while it measures, as a GPU that falls off takes its worker down.
 */
@Tag("slow")
class LocalSweepTest {
    /** One calibration cache for the class: the CPU is measured once, by the first worker. */
    @TempDir static Path cache;

    /**
     * Each measurement samples for 2 s, so a shard takes several seconds and the first worker cannot
     * drain the queue before the second one is up, however slowly a loaded machine starts its JVM
     * (at 0.25 s a shard, worker cpu/0 once finished all six before cpu/1 took one).
     */
    static final String PLAN = "{\"ops\": \"rmsnorm,swiglu,cat\", \"tokens\": \"8,16\", \"passes\": \"fwd,bwd\", \"check\": 0,"
            + " \"timing\": {\"minSamples\": 3, \"minSeconds\": 2, \"timeoutSeconds\": 2.5, \"warmupSeconds\": 0}}";

    @Test
    void twoWorkersShareTheQueueAndAKilledOneFailsOnlyItsShard(@TempDir Path tmp) throws Exception {
        SweepDir dir = SweepDir.create(tmp.resolve("sweep"), PlanFile.parse(PLAN, "plan.json", SpecRegistry.presets()));
        WorkerCommand worker = WorkerCommand.current().withEnv(Map.of("GLUELAB_CACHE", cache.toString()));
        List<String> progress = new CopyOnWriteArrayList<>();
        LocalSweep sweep = new LocalSweep(dir, List.of("cpu", "cpu"), worker, (task, done, total, detail) -> progress.add(done + "/" + total + " " + detail));
        AtomicReference<List<ShardStatus>> result = new AtomicReference<>();
        Thread runner = Thread.ofPlatform().start(() -> result.set(sweep.run()));

        LocalSweep.WorkerState victim = null;
        // cpu/1 takes its first shard once cpu/0 has calibrated the CPU (the cache is locked meanwhile): tens of seconds
        // here, minutes on a loaded 2-core CI machine. The waits end as soon as the workers are done.
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (victim == null && runner.isAlive() && System.nanoTime() < deadline) {
            LocalSweep.WorkerState w = sweep.workers().get("cpu/1");
            if (w != null && w.shard() != null && w.pid() > 0) victim = w;
            else Thread.sleep(20);
        }
        assertNotNull(victim, "worker cpu/1 never took a shard; progress: " + progress);
        ProcessHandle.of(victim.pid()).orElseThrow().destroyForcibly();
        runner.join(600_000);
        assertFalse(runner.isAlive(), "the sweep did not finish");

        List<ShardStatus> st = result.get();
        List<ShardStatus> failed = st.stream().filter(s -> s.state() == ShardState.FAILED).toList();
        assertEquals(1, failed.size(), StatusTable.table(st).printAll());
        assertTrue(failed.getFirst().detail().contains("died") && failed.getFirst().detail().contains("cpu/1"), failed.getFirst().detail());
        assertEquals(st.size() - 1, st.stream().filter(s -> s.state() == ShardState.DONE).count(), StatusTable.table(st).printAll());
        assertTrue(sweep.workers().get("cpu/1").retired());
        assertTrue(progress.stream().anyMatch(p -> p.contains("cpu/0") && p.contains("cpu/1")), "progress shows both workers: " + progress);
        assertTrue(Files.exists(dir.logs().resolve("worker-cpu-0.log")) && Files.exists(dir.logs().resolve("worker-cpu-1.log")));

        Merge.Result partial = Merge.of(List.of(dir.root()), false);
        assertEquals(List.of(failed.getFirst().name()), partial.notMerged().stream().map(ShardStatus::name).toList());

        // Resuming (as a notebook does, through a handle) runs only the failed shard; then the merge is
        // complete and is the union of the shards.
        List<String> resumeProgress = new CopyOnWriteArrayList<>();
        SweepHandle handle = SweepHandle.startLocal(dir, List.of("cpu"), worker, (t, d, n, x) -> resumeProgress.add(d + "/" + n));
        handle.await(java.time.Duration.ofMinutes(3), (t, d, n, x) -> {});
        assertTrue(handle.finished());
        assertTrue(handle.toString().endsWith("6 DONE of 6"), handle.toString());
        assertEquals("0/1", resumeProgress.getFirst());
        assertEquals(6, handle.status().rowCount());
        Merge.Result full = handle.collect(false);
        assertTrue(full.complete());
        assertTrue(Files.isRegularFile(dir.merged().resolve("llama-3-8b").resolve(RecordStore.RECORD_FILE)));
        List<String> union = new ArrayList<>();
        for (Shard s : dir.shards()) for (Row r : RecordStore.load(dir.shardDir(s)).rows()) union.add(Json.write(r));
        assertEquals(union, full.experiments().getFirst().rows().stream().map(Json::write).toList());
    }

    @Test
    void aFailedShardRestartsTheWorkerAndTheNextShardRuns(@TempDir Path tmp) {
        // swiglu at 16M tokens cannot fit in memory: a real failure in the worker, before any allocation.
        String plan = "{\"ops\": \"swiglu\", \"tokens\": \"8,16000000\", \"check\": 0,"
                + " \"timing\": {\"mode\": \"hot\", \"minSamples\": 3, \"minSeconds\": 0, \"timeoutSeconds\": 0.05, \"warmupSeconds\": 0}}";
        SweepDir dir = SweepDir.create(tmp.resolve("sweep"), PlanFile.parse(plan, "plan.json", SpecRegistry.presets()));
        WorkerCommand worker = WorkerCommand.current().withEnv(Map.of("GLUELAB_CACHE", cache.toString()));
        LocalSweep sweep = new LocalSweep(dir, List.of("cpu"), worker, (t, d, n, x) -> {});
        List<ShardStatus> st = sweep.run();
        String table = StatusTable.table(st).printAll();
        // Largest first: the failing shard ran first, in the first worker; a fresh worker ran the other.
        assertEquals(ShardState.FAILED, st.get(1).state(), table);
        assertTrue(st.get(1).detail().contains("needs about"), table);
        assertEquals(ShardState.DONE, st.get(0).state(), table);
        assertFalse(sweep.workers().get("cpu").retired());
    }

    @Test
    void badDeviceListsAreRefusedBeforeAnythingStarts() {
        assertEquals(List.of("cpu", "cpu"), DeviceList.parse("cpu,cpu"));
        var e = assertThrows(IllegalArgumentException.class, () -> DeviceList.parse("cpu,tpu"));
        assertTrue(e.getMessage().contains("'tpu'"), e.getMessage());
        if (gluelab.device.Devices.count("cuda") == 0) {
            e = assertThrows(IllegalArgumentException.class, () -> DeviceList.parse("all"));
            assertTrue(e.getMessage().contains("no usable GPU"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> DeviceList.parse("0,1"));
            assertTrue(e.getMessage().contains("GPU 0 does not exist"), e.getMessage());
        }
    }
}
