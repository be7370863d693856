package gluelab.report;

import gluelab.units.Numbers;
import gluelab.bench.BenchPlan;
import gluelab.calibrate.Calibration;
import gluelab.backend.cpu.CpuDevice;
import gluelab.devlog.Devlog;
import gluelab.bench.BenchSession;
import gluelab.lab.RunReport;
import gluelab.record.RecordPublisher;
import gluelab.record.RunKind;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.ExperimentRecord;
import gluelab.record.RecordStore;
import gluelab.record.Row;
import gluelab.tensor.DType;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Findings and tables say what the record holds: on a CPU run made here and on a GPU run recorded on the H200. */
@Tag("slow") // among the slowest of the fast run (docs/development.md)
class FindingsTest {
    static ExperimentRecord cpuRun(Path out, Mode mode, StopRule rule) {
        try (CpuDevice device = new CpuDevice(2)) {
            BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.parse("rmsnorm"), Catalogue.parse("cat")), List.of(16L),
                    List.of(Variant.EAGER, Variant.FUSED), List.of(Pass.FORWARD), DType.BF16, new TimingConfig(mode, 0, rule, 2), 4);
            return BenchSession.on(device, Calibration.given("test", 50e9, 1e11)).devlog(new Devlog(out.resolve("devlog.md")))
                    .record(plan, new BenchSession.Recording(new RecordPublisher(new RecordStore(out), RunReport.RENDERER), RunKind.BENCH, 0.01)).record();
        }
    }

    @TempDir static Path runs;
    /** A cold run whose noise bound cannot be met: every row stops on its (short) timeout. */
    static ExperimentRecord coldNoisy;
    /** A hot run with a loose bound and room for samples, so every row converges even on a loaded machine. */
    static ExperimentRecord hotSound;
    static Instant before;

    @BeforeAll
    static void run() {
        before = Instant.now();
        coldNoisy = cpuRun(runs.resolve("cold"), Mode.COLD, new StopRule(3, 0, 1e-9, 0.05, 1_000_000));
        hotSound = cpuRun(runs.resolve("hot"), Mode.HOT, new StopRule(3, 0, 0.9, 30, 5000));
    }

    /** The findings markdown as rendered, without drawing charts (slow, and covered by RecordRoundTripTest). */
    static String findings(ExperimentRecord r, Path dir) {
        return Findings.markdown(r, new RunReport(r).ranking(), java.util.Map.of());
    }

    static String section(String md, String title) {
        int at = md.indexOf("## " + title);
        assertTrue(at >= 0, "no section " + title + " in\n" + md);
        int next = md.indexOf("\n## ", at + 3);
        return md.substring(at, next < 0 ? md.length() : next);
    }

    @Test
    void theConditionsNameTheBufferPlacementsWhereRowsRotated(@TempDir Path out) {
        ExperimentRecord r = hotSound;
        assertFalse(findings(r, out).contains("placements"), "the CPU uses one placement: nothing to say");
        List<gluelab.record.Row> rotated = r.rows().stream().map(row -> {
            var m = row.measurement();
            var three = new gluelab.timing.Measurement(m.label(), m.mode(), m.samples(), m.summary(), m.stopReason(), m.kernels(), m.peakBytes(),
                    m.wallSeconds(), m.discarded(), m.noise(), m.rule(), 3);
            return new gluelab.record.Row(row.key(), row.model(), row.bytes(), row.flops(), row.idealUs(), row.bound(), three, row.correctness());
        }).toList();
        var params = new java.util.LinkedHashMap<>(r.parameters());
        params.put("placements", "8");
        ExperimentRecord rr = r.toBuilder().parameters(params).rows(rotated).build();
        String conditions = section(findings(rr, out), "Summary");
        assertTrue(conditions.contains("direct rows of small groups rotated through up to 3 buffer placements (8 asked)"), conditions);
    }

    @Test
    void aColdCpuRunSaysWhatItDidNotTest(@TempDir Path out) throws Exception {
        ExperimentRecord r = coldNoisy;
        String md = findings(r, out.resolve("render"));
        String notTested = section(md, "Not tested");
        assertTrue(notTested.contains("CUDA-graph replay rows (the cpu device has no graph replay)"), notTested);
        assertTrue(notTested.contains("hot samples"), notTested);
        assertTrue(notTested.contains("bwd pass"), notTested);
        assertFalse(notTested.contains("cold samples"), notTested);
        String method = section(md, "Method");
        assertTrue(method.contains("Cold samples (last-level cache flushed before each)"), method);
        assertTrue(method.contains("noise was under 0.00% after at least 3 samples"), method);
        assertFalse(method.contains("graph"), method);
    }

    @Test
    void aHotRunIsNotCalledCold(@TempDir Path out) throws Exception {
        ExperimentRecord r = hotSound;
        String md = findings(r, out.resolve("render"));
        assertTrue(section(md, "Not tested").contains("cold samples"), md);
        assertFalse(section(md, "Not tested").contains("hot samples"), md);
        assertTrue(section(md, "Method").contains("Hot samples"), md);
        assertFalse(md.contains("Cold samples"), md);
    }

    @Test
    void theRunsSpanIsFromItsStartToItsEnd(@TempDir Path out) throws Exception {
        ExperimentRecord r = coldNoisy;
        Instant started = Instant.parse(r.environment().startedAt()), finished = Instant.parse(r.finishedAt());
        assertFalse(started.isBefore(before.minusMillis(1)), started + " vs " + before);
        long ms = Duration.between(started, finished).toMillis();
        double sampled = r.rows().stream().mapToDouble(x -> x.measurement().wallSeconds()).sum();
        assertTrue(ms >= sampled * 1000, "span " + ms + " ms is shorter than the sampling " + sampled + " s");
        assertTrue(findings(r, out.resolve("render")).contains(", started " + Numbers.timestamp(started) + ", finished " + Numbers.timestamp(finished)), "span in findings, to the second");
    }

    @Test
    void rowsThatTimedOutAreFlaggedInTablesRankingAndFindings(@TempDir Path out) throws Exception {
        ExperimentRecord r = coldNoisy;
        assertTrue(r.rows().stream().allMatch(x -> x.measurement().stopReason() == StopRule.Reason.TIMEOUT));
        Table results = Tables.results(r.rows());
        assertTrue(results.stringColumn("noisy").get(0).startsWith("timeout"), results.print());
        assertTrue(Tables.baselines(r.rows()).columnNames().contains("noisy"));
        RunReport report = new RunReport(r);
        assertTrue(report.ranking().table().columnNames().contains("noisy"), report.ranking().table().print());
        String md = findings(r, out.resolve("render"));
        assertTrue(md.contains("**Noisy rows** (" + r.rows().size() + " of " + r.rows().size() + ")"), md);
        assertTrue(md.contains("rmsnorm fwd eager T=16 bf16: timeout"), md);
        assertTrue(md.contains("[noisy: timeout"), "the summary block flags them too: " + md);
    }

    @Test
    void aSoundRunHasNoNoisyFlags(@TempDir Path out) throws Exception {
        ExperimentRecord r = hotSound;
        assertTrue(r.rows().stream().allMatch(x -> x.measurement().noisy().isEmpty()), r.rows().toString());
        assertFalse(findings(r, out.resolve("render")).contains("Noisy rows"));
        assertFalse(Tables.baselines(r.rows()).columnNames().contains("noisy"));
    }

    @Test
    void correctnessErrorsAreRoundedToThreeSignificantDigits() {
        ExperimentRecord r = hotSound;
        var checks = r.rows().stream().map(Row::correctness).filter(java.util.Objects::nonNull).distinct().toList();
        Table t = Tables.correctness(checks);
        for (double v : t.doubleColumn("rel_l2_vs_fp64").asDoubleArray()) {
            assertEquals(gluelab.units.Numbers.significant(v, 3), v);
            assertTrue(Double.toString(v).replaceAll("E.*|^0\\.0*|\\.", "").length() <= 3, "too many digits: " + v);
        }
    }

    @Test
    void aGpuRecordFromTheH200HasItsGraphRowsInTablesAndFindings(@TempDir Path out) throws Exception {
        ExperimentRecord r = RecordStore.load(Path.of("src/test/resources/records/h200-demo"));
        assertTrue(r.rows().stream().anyMatch(x -> x.replay() == Replay.GRAPH));
        String md = findings(r, out);
        assertFalse(section(md, "Not tested").contains("CUDA-graph replay rows"), md);
        assertTrue(section(md, "Method").contains("CUDA-graph rows replaying 20 captured launches"), md);
        assertTrue(md.contains("NVIDIA H200"), md);
        Table baselines = Tables.baselines(r.rows());
        assertTrue(baselines.columnNames().stream().anyMatch(n -> n.startsWith("eager_graph (")) && baselines.columnNames().stream().anyMatch(n -> n.startsWith("fused_graph (")),
                baselines.columnNames().toString());
        assertEquals(r.rows().stream().filter(x -> x.replay() == Replay.DIRECT).count() / 2, baselines.rowCount());
        long noisy = r.rows().stream().filter(x -> x.measurement().noisy().isPresent()).count();
        assertEquals(noisy > 0, md.contains("**Noisy rows** (" + noisy + " of "), md);
    }
}
