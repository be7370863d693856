package gluelab.record;

import gluelab.bench.BenchPlan;
import gluelab.calibrate.Calibration;
import gluelab.device.cpu.CpuDevice;
import gluelab.devlog.Devlog;
import gluelab.lab.Experiment;
import gluelab.lab.RunReport;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.tensor.DType;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class RecordRoundTripTest {
    static final TimingConfig FAST = new TimingConfig(Mode.COLD, 0, new StopRule(3, 0, 0.5, 0.2, 20), 2);

    static Experiment.Outcome smallRun(Path out, CpuDevice device) {
        BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.get("rmsnorm"), Catalogue.get("swiglu")),
                List.of(8L, 16L), List.of(Variant.EAGER, Variant.FUSED), List.of(Pass.FORWARD, Pass.BACKWARD), DType.BF16, FAST, 4);
        Calibration cal = Calibration.given("test", 50e9, 1e11);
        return Experiment.run("test", plan, device, cal, new RecordStore(out), new Devlog(out.resolve("devlog.md")), Progress.NONE, 0.01);
    }

    @Test
    void aRunReloadsAndReRendersIdentically(@TempDir Path out) throws Exception {
        try (CpuDevice device = new CpuDevice(2)) {
            Experiment.Outcome run = smallRun(out, device);
            assertEquals(16, run.record().rows().size());
            ExperimentRecord loaded = RecordStore.load(run.dir());
            assertEquals(Json.write(run.record()), Json.write(loaded));
            for (int i = 0; i < loaded.rows().size(); i++) {
                assertArrayEquals(run.record().rows().get(i).measurement().samples(), loaded.rows().get(i).measurement().samples());
            }
            String first = Files.readString(run.dir().resolve("findings.md"));
            Path again = out.resolve("again");
            RunReport.render(loaded, again);
            assertEquals(first, Files.readString(again.resolve("findings.md")));
            assertTrue(Files.size(again.resolve("charts/ranked.png")) > 1000);
            assertTrue(Files.readString(again.resolve("charts/baselines_fwd.svg")).contains("<svg"));
            // The devlog got one entry per measurement plus start and finish notes.
            List<Devlog.Entry> entries = new Devlog(out.resolve("devlog.md")).read();
            assertEquals(16 + 2, entries.size());
            assertEquals(16, entries.stream().filter(e -> e.kind() == Devlog.Kind.MEASUREMENT).count());
        }
    }

    @Test
    void corruptAndPartialRecordsAreNamedAndOthersStillLoad(@TempDir Path out) throws Exception {
        try (CpuDevice device = new CpuDevice(2)) {
            Path good = smallRun(out, device).dir();
            Path bad = smallRun(out, device).dir();
            String text = Files.readString(bad.resolve("record.json"));
            Files.writeString(bad.resolve("record.json"), text.substring(0, text.length() / 2));
            var e = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(bad));
            assertTrue(e.getMessage().contains(bad.resolve("record.json").toString()), e.getMessage());
            assertTrue(e.getMessage().contains("line"), e.getMessage());

            Path partial = new RecordStore(out).begin("half-written");
            Files.writeString(partial.resolve("record.json"), text);
            var p = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(partial));
            assertTrue(p.getMessage().contains("incomplete"), p.getMessage());

            List<String> problems = new ArrayList<>();
            List<ExperimentRecord> all = new RecordStore(out).loadAll(problems);
            assertEquals(1, all.size());
            assertEquals(good.getFileName().toString(), all.getFirst().id());
            assertEquals(2, problems.size(), problems.toString());
        }
    }

    @Test
    void aFailedRunKeepsItsPartialFolderWithAMarker(@TempDir Path out) throws Exception {
        try (CpuDevice device = new CpuDevice(2)) {
            // An absurd token count fails the memory check inside the run.
            BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.get("swiglu")), List.of(1L << 24),
                    List.of(Variant.EAGER), List.of(Pass.FORWARD), DType.BF16, FAST, 0);
            Devlog log = new Devlog(out.resolve("devlog.md"));
            assertThrows(IllegalArgumentException.class, () -> Experiment.run("fail", plan, device,
                    Calibration.given("t", 1e10, 1e10), new RecordStore(out), log, Progress.NONE, 0.01));
            try (var dirs = Files.list(out)) {
                Path partial = dirs.filter(d -> d.getFileName().toString().endsWith(".partial")).findFirst().orElseThrow();
                assertTrue(Files.readString(partial.resolve("FAILED")).contains("needs about"));
                var e = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(partial));
                assertTrue(e.getMessage().contains("failed"));
            }
            assertEquals(Devlog.Kind.DEAD_END, log.read().getLast().kind());
        }
    }
}
