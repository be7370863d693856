package gluelab.sweep.slurm;

import gluelab.lab.SweepHandle;
import gluelab.model.SpecRegistry;
import gluelab.progress.Progress;
import gluelab.files.Json;
import gluelab.record.RecordStore;
import gluelab.record.Row;
import gluelab.sweep.*;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A sweep submitted as a job array to a real Slurm (slurmctld + slurmd on 127.0.0.1, CPU node):
 * one running task and one queued task are cancelled with scancel and reported by name, the rest
 * are collected; the cancelled ones are resubmitted alone, and the final merge is the union of
 * every shard. Skipped, with the reason, where Slurm is not installed or slurmd cannot start.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("slow")
class SlurmSweepTest {
    /** Rows end on their 2 s timeout: the running task is cancelled within that window, however slow scancel is. */
    static final String PLAN = "{\"ops\": \"rmsnorm,cat\", \"tokens\": \"8,16,32\", \"passes\": \"fwd\", \"check\": 0,"
            + " \"timing\": {\"mode\": \"hot\", \"minSamples\": 3, \"minSeconds\": 1.5, \"timeoutSeconds\": 2, \"warmupSeconds\": 0}}";
    /** Waits that end as soon as Slurm is done: generous, as a loaded 2-core CI machine starts each task's JVM slowly. */
    static final Duration WAIT = Duration.ofMinutes(10);

    @TempDir static Path tmp;
    LocalSlurm cluster;
    Optional<String> unavailable;

    @BeforeAll
    void startCluster() throws Exception {
        unavailable = LocalSlurm.unavailableReason();
        if (unavailable.isEmpty()) cluster = LocalSlurm.start(tmp.resolve("slurm"));
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) cluster.close();
    }

    @Test
    void aJobArrayWithCancelledTasksIsCollectedResubmittedAndMerged() throws Exception {
        assumeTrue(unavailable.isEmpty(), () -> unavailable.get());
        Map<String, String> env = new HashMap<>(cluster.env());
        env.put("GLUELAB_CACHE", tmp.resolve("cache").toString());
        SlurmCommands slurm = new SlurmCommands(env);
        SweepDir dir = SweepDir.create(tmp.resolve("sweep"), PlanFile.parse(PLAN, "plan.json", SpecRegistry.presets()));
        List<Shard> shards = dir.shards();
        assertEquals(6, shards.size());
        SlurmSweep sweep = new SlurmSweep(dir, slurm);
        SlurmOptions options = new SlurmOptions(null, 0, 1, "5:00", 2, "cpu", List.of());

        Submission sub = sweep.submit(options, WorkerCommand.current()).getFirst();
        assertEquals(6, sub.shards().size());
        String script = Files.readString(Path.of(sub.script()));
        assertTrue(script.contains("#SBATCH --array=0-5%2"), script);

        // The last task waits behind the throttle: cancel it while queued.
        Shard queued = shards.getLast(), running = shards.getFirst();
        slurm.check("scancel", sub.taskOf(queued.index()));
        // Cancel the first task while it measures (its partial folder exists once measuring starts).
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!Files.isDirectory(dir.partialDir(running)) && System.nanoTime() < deadline) {
            assertNotEquals(ShardState.DONE, dir.fileStatus(running).state(), "the first shard finished before it could be cancelled");
            Thread.sleep(50);
        }
        slurm.check("scancel", sub.taskOf(running.index()));

        List<ShardStatus> st = sweep.await(WAIT, Duration.ofMillis(500), Progress.NONE);
        Map<String, ShardStatus> byName = new HashMap<>();
        st.forEach(s -> byName.put(s.name(), s));
        String table = StatusTable.table(st).printAll();
        assertEquals(ShardState.CANCELLED, byName.get(running.name()).state(), table);
        assertTrue(byName.get(running.name()).detail().contains("CANCELLED") && byName.get(running.name()).detail().contains(sub.taskOf(0)), table);
        assertEquals(ShardState.LOST, byName.get(queued.name()).state(), table);
        assertTrue(byName.get(queued.name()).detail().contains("cancelled while pending"), table);
        assertEquals(4, st.stream().filter(s -> s.state() == ShardState.DONE).count(), table);
        assertTrue(Files.readString(dir.logs().resolve("slurm-" + sub.jobId() + "_1.out")).contains("shard #1 " + shards.get(1).name()),
                "each task logs into the sweep's logs/");

        // Collect merges the four that finished and names the two that did not.
        Merge.Result partial = SweepHandle.at(dir, slurm).collect(false);
        assertEquals(Set.of(running.name(), queued.name()), new HashSet<>(partial.notMerged().stream().map(ShardStatus::name).toList()));
        assertTrue(partial.experiments().getFirst().parameters().get("notMerged").contains(running.name() + " (CANCELLED)"));
        assertEquals(union(dir, shards.subList(1, 5)), rows(partial));

        // Resubmitting runs only those two, in a new array.
        Submission again = sweep.resubmit(List.of(), WorkerCommand.current()).getFirst();
        assertEquals(List.of(running.index(), queued.index()), again.shards());
        st = sweep.await(WAIT, Duration.ofMillis(500), Progress.NONE);
        assertTrue(st.stream().allMatch(s -> s.state() == ShardState.DONE), StatusTable.table(st).printAll());
        Merge.Result full = SweepHandle.at(dir, slurm).collect(false);
        assertTrue(full.complete());
        assertEquals(union(dir, shards), rows(full));
    }

    static List<String> union(SweepDir dir, List<Shard> shards) {
        List<String> rows = new ArrayList<>();
        for (Shard s : shards) for (Row r : RecordStore.load(dir.shardDir(s)).rows()) rows.add(Json.write(r));
        return rows;
    }

    static List<String> rows(Merge.Result r) {
        return r.experiments().getFirst().rows().stream().map(Json::write).toList();
    }
}
