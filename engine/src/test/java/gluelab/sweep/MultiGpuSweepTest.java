package gluelab.sweep;

import gluelab.device.Devices;
import gluelab.model.SpecRegistry;
import gluelab.record.ExperimentRecord;
import gluelab.record.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One worker process per GPU on a real host. Skipped, with the reason, where there are no GPUs
 * (CI) or, for the scaling test, fewer than two. Prints the wall times it compares.
 */
@Tag("gpu")
class MultiGpuSweepTest {
    static final String CATALOGUE = "{\"ops\": \"all\", \"tokens\": \"2k,4k,16k,32k\", \"passes\": \"fwd,bwd\", \"timing\": \"quick\"}";
    static final String WARM_UP = "{\"ops\": \"rmsnorm\", \"tokens\": \"%s\", \"passes\": \"fwd\", \"timing\": \"quick\", \"check\": 0}";

    static int gpus() { return Devices.count("cuda"); }

    static Map<String, String> cache(Path tmp) { return Map.of("GLUELAB_CACHE", tmp.resolve("cache").toString()); }

    static List<ShardStatus> run(Path root, String plan, List<String> devices, Map<String, String> env) {
        SweepDir dir = SweepDir.create(root, PlanFile.parse(plan, "plan.json", SpecRegistry.presets()));
        return new LocalSweep(dir, devices, WorkerCommand.current().withEnv(env), (t, d, n, x) -> {}).run();
    }

    @Test
    void aWorkerPerGpuMeasuresAndMerges(@TempDir Path tmp) {
        assumeTrue(gpus() >= 1, "no usable GPU here");
        List<String> all = DeviceList.parse("all");
        List<ShardStatus> st = run(tmp.resolve("s"), WARM_UP.formatted("2k,4k"), all, cache(tmp));
        assertTrue(st.stream().allMatch(s -> s.state() == ShardState.DONE), StatusTable.table(st).printAll());
        ExperimentRecord merged = Merge.of(List.of(tmp.resolve("s")), false).experiments().getFirst();
        assertEquals("cuda", merged.environment().device().kind());
        assertEquals(4, merged.rows().stream().filter(r -> !r.key().graph()).count());
    }

    @Test
    void twoGpusTakeAtMostSixTenthsOfOneGpusWallTimeWithTheSameNumbers(@TempDir Path tmp) {
        assumeTrue(gpus() >= 2, "needs two GPUs, found " + gpus());
        List<String> all = DeviceList.parse("all");
        // Calibrate every GPU and compile every kernel first (the compile cache is shared), so neither timed run pays for it.
        run(tmp.resolve("warm"), "{\"ops\": \"all\", \"tokens\": \"2k\", \"passes\": \"fwd,bwd\", \"timing\": \"quick\", \"check\": 0}",
                List.of("cuda:0"), cache(tmp));
        for (String d : all.subList(1, all.size())) run(tmp.resolve("warm-" + d.replace(':', '_')), WARM_UP.formatted("2k"), List.of(d), cache(tmp));

        long t0 = System.nanoTime();
        List<ShardStatus> one = run(tmp.resolve("one"), CATALOGUE, List.of("cuda:0"), cache(tmp));
        double oneSeconds = (System.nanoTime() - t0) * 1e-9;
        long t1 = System.nanoTime();
        List<ShardStatus> many = run(tmp.resolve("all"), CATALOGUE, all, cache(tmp));
        double allSeconds = (System.nanoTime() - t1) * 1e-9;
        assertTrue(one.stream().allMatch(s -> s.state() == ShardState.DONE), StatusTable.table(one).printAll());
        assertTrue(many.stream().allMatch(s -> s.state() == ShardState.DONE), StatusTable.table(many).printAll());

        // Each GPU has its own calibration; they must agree for the shards to merge without --allow-mixed.
        ExperimentRecord a = Merge.of(List.of(tmp.resolve("one")), false).experiments().getFirst();
        ExperimentRecord b = Merge.of(List.of(tmp.resolve("all")), false).experiments().getFirst();
        Map<gluelab.ops.MeasureKey, Row> byKey = new HashMap<>();
        a.rows().forEach(r -> byKey.put(r.key(), r));
        int within5 = 0;
        double worst = 0;
        String worstKey = "";
        for (Row r : b.rows()) {
            Row o = byKey.get(r.key());
            assertNotNull(o, r.key().toString());
            double rel = Math.abs(r.measuredUs() - o.measuredUs()) / o.measuredUs();
            if (rel <= 0.05) within5++;
            if (rel > worst) {
                worst = rel;
                worstKey = r.key().toString();
            }
        }
        System.out.printf(Locale.ROOT, "multi-GPU sweep: %d shards, 1 GPU %.1f s, %d GPUs %.1f s, ratio %.2f; %d/%d rows within 5%%, worst %s %.1f%%%n",
                one.size(), oneSeconds, all.size(), allSeconds, allSeconds / oneSeconds, within5, b.rows().size(), worstKey, 100 * worst);
        assertTrue(allSeconds <= 0.6 * oneSeconds, String.format("%d GPUs took %.1f s, one GPU %.1f s", all.size(), allSeconds, oneSeconds));
        assertTrue(within5 >= 0.9 * b.rows().size(), within5 + " of " + b.rows().size() + " rows within 5%; worst " + worstKey);
        assertTrue(worst <= 0.25, "worst row " + worstKey + " differs by " + Math.round(100 * worst) + "%");
    }
}
