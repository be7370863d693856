package gluelab.sweep;

import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.calibrate.Calibration;
import gluelab.backend.cpu.CpuDevice;
import gluelab.lab.RunReport;
import gluelab.model.SpecRegistry;
import gluelab.progress.Progress;
import gluelab.record.ExperimentRecord;
import gluelab.files.Json;
import gluelab.record.RecordStore;
import gluelab.record.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.*;

/** Real shard records measured on the CPU (tiny sizes, given calibration), merged. */
@Tag("slow") // measures every shard on the CPU
class MergeTest {
    static final String TIMING = "{\"mode\": \"hot\", \"minSamples\": 3, \"minSeconds\": 0, \"timeoutSeconds\": 0.05, \"warmupSeconds\": 0}";
    static CpuDevice device;
    static final Calibration CAL = Calibration.given("test", 50e9, 1e11);

    @BeforeAll
    static void open() { device = new CpuDevice(2); }

    @AfterAll
    static void close() { device.close(); }

    static SweepDir sweep(Path root, String passes, int processes) {
        String plan = "{\"ops\": \"rmsnorm,swiglu\", \"tokens\": \"16,8\", \"passes\": \"" + passes + "\", \"check\": 0, \"processes\": "
                + processes + ", \"timing\": " + TIMING + "}";
        return SweepDir.create(root, PlanFile.parse(plan, "plan.json", SpecRegistry.presets()));
    }

    static void runAll(SweepDir dir) {
        ShardRunner runner = new ShardRunner(dir, device, CAL);
        for (Shard s : dir.shards()) runner.run(s, Progress.NONE);
    }

    /** Rewrites one shard's published record, as a shard measured elsewhere would look. */
    static void edit(SweepDir dir, Shard s, Consumer<ObjectNode> change) throws Exception {
        Path f = dir.shardDir(s).resolve(RecordStore.RECORD_FILE);
        ObjectNode root = (ObjectNode) Json.MAPPER.readTree(f.toFile());
        change.accept(root);
        Files.writeString(f, Json.write(root));
    }

    @Test
    void mergedExperimentIsTheUnionOfItsShardsInPlanOrder(@TempDir Path tmp) throws Exception {
        SweepDir dir = sweep(tmp.resolve("s"), "fwd,bwd", 1);
        assertEquals(4, dir.shards().size());
        ShardRunner runner = new ShardRunner(dir, device, CAL);
        for (Shard s : dir.shards().subList(0, 3)) runner.run(s, Progress.NONE);
        Shard last = dir.shards().get(3);
        dir.markFailed(last, "the worker on cuda:1 died while measuring it (exit code 134)");

        Merge.Result partial = Merge.of(List.of(dir.root()), false);
        assertFalse(partial.complete());
        assertEquals(List.of(last.name()), partial.notMerged().stream().map(ShardStatus::name).toList());
        assertEquals(ShardState.FAILED, partial.notMerged().getFirst().state());
        assertTrue(partial.notMerged().getFirst().detail().contains("died"), partial.notMerged().getFirst().detail());
        assertTrue(partial.experiments().getFirst().parameters().get("notMerged").contains(last.name()));

        runner.run(last, Progress.NONE);
        // Running it again publishes nothing new: a done shard is not measured twice.
        ExperimentRecord again = runner.run(last, Progress.NONE);
        assertEquals(Json.write(RecordStore.load(dir.shardDir(last))), Json.write(again));

        Merge.Result full = Merge.of(List.of(dir.root()), false);
        assertTrue(full.complete());
        ExperimentRecord merged = full.experiments().getFirst();
        List<Row> union = new ArrayList<>();
        for (Shard s : dir.shards()) union.addAll(RecordStore.load(dir.shardDir(s)).rows());
        assertEquals(union.size(), merged.rows().size());
        assertEquals(union.stream().map(Json::write).sorted().toList(), merged.rows().stream().map(Json::write).sorted().toList());
        // Plan order: token counts ascending as given... then op, then pass, as one bench run orders its rows.
        assertEquals("rmsnorm fwd eager T=16 bf16", merged.rows().getFirst().key().toString());
        assertEquals(16, merged.rows().get(merged.rows().size() / 2 - 1).tokens());
        assertEquals("16,8", merged.parameters().get("tokens"));
        assertEquals("4", merged.parameters().get("shards"));

        // It renders as any run does; written to disk it reloads the same.
        List<Path> out = MergeOutput.publish(full, dir.merged(), (r, d) -> new RunReport(r).render(d));
        assertEquals(Json.write(merged), Json.write(RecordStore.load(out.getFirst())));
        assertTrue(Files.readString(out.getFirst().resolve("findings.md")).contains("Ranked candidates"));
        MergeOutput.publish(full, dir.merged(), (r, d) -> new RunReport(r).render(d));
        assertTrue(Files.isRegularFile(out.getFirst().resolve(RecordStore.RECORD_FILE)));
    }

    @Test
    void shardsFromOtherDevicesCodeOrCalibrationsAreRefusedUnlessAllowed(@TempDir Path tmp) throws Exception {
        SweepDir dir = sweep(tmp.resolve("s"), "fwd,bwd", 1);
        runAll(dir);
        Shard odd = dir.shards().get(2);
        edit(dir, odd, r -> ((ObjectNode) r.path("environment").path("device")).put("name", "NVIDIA A100-SXM4-80GB"));
        var e = assertThrows(IllegalArgumentException.class, () -> Merge.of(List.of(dir.root()), false));
        assertTrue(e.getMessage().contains("different devices") && e.getMessage().contains("A100") && e.getMessage().contains(odd.name()), e.getMessage());
        assertTrue(e.getMessage().contains("--allow-mixed"), e.getMessage());
        Merge.Result mixed = Merge.of(List.of(dir.root()), true);
        assertTrue(mixed.experiments().getFirst().parameters().get("mixed").contains("A100"));

        edit(dir, odd, r -> ((ObjectNode) r.path("environment").path("device")).put("name", device.facts().name()));
        Merge.of(List.of(dir.root()), false);
        edit(dir, odd, r -> ((ObjectNode) r.path("environment")).put("gitCommit", "0123abc"));
        e = assertThrows(IllegalArgumentException.class, () -> Merge.of(List.of(dir.root()), false));
        assertTrue(e.getMessage().contains("different code versions") && e.getMessage().contains("0123abc"), e.getMessage());

        edit(dir, odd, r -> ((ObjectNode) r.path("environment")).put("gitCommit", RecordStore.load(dir.shardDir(dir.shards().getFirst())).environment().gitCommit()));
        edit(dir, odd, r -> ((ObjectNode) r.path("environment").path("calibration")).put("copyMedian", 40e9));
        e = assertThrows(IllegalArgumentException.class, () -> Merge.of(List.of(dir.root()), false));
        assertTrue(e.getMessage().contains("calibrations") && e.getMessage().contains(odd.name()), e.getMessage());
        edit(dir, odd, r -> ((ObjectNode) r.path("environment").path("calibration")).put("copyMedian", 49e9));
        assertTrue(Merge.of(List.of(dir.root()), false).mixed().isEmpty(), "2% apart is the same calibration");
    }

    @Test
    void aShardInTwoPlacesOrNothingFinishedIsNamed(@TempDir Path tmp) {
        SweepDir dir = sweep(tmp.resolve("s"), "fwd,bwd", 1);
        var e = assertThrows(IllegalArgumentException.class, () -> Merge.of(List.of(dir.root()), false));
        assertTrue(e.getMessage().contains("no shard has finished") && e.getMessage().contains(dir.shards().getFirst().name()), e.getMessage());
        new ShardRunner(dir, device, CAL).run(dir.shards().getFirst(), Progress.NONE);
        e = assertThrows(IllegalArgumentException.class, () -> Merge.of(List.of(dir.root(), dir.shardDir(dir.shards().getFirst())), false));
        assertTrue(e.getMessage().contains("is in two places"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Merge.of(List.of(tmp.resolve("nope")), false));
        assertTrue(e.getMessage().contains("nope"), e.getMessage());
    }

    @Test
    void confirmingProcessesMergeToTheMiddleOneWithEveryMedianKept(@TempDir Path tmp) {
        SweepDir dir = sweep(tmp.resolve("s"), "fwd", 3);
        assertEquals(12, dir.shards().size());
        runAll(dir);
        ExperimentRecord merged = Merge.of(List.of(dir.root()), false).experiments().getFirst();
        assertEquals(8, merged.rows().size());
        for (Row r : merged.rows()) {
            String medians = merged.telemetry().get("confirm." + r.key());
            assertNotNull(medians, r.key().toString());
            List<Double> us = java.util.Arrays.stream(medians.replace(" us", "").split(",")).map(Double::parseDouble).sorted().toList();
            assertEquals(3, us.size());
            assertEquals(us.get(1), r.measuredUs(), 0.006, r.key().toString());
        }
    }
}
