package gluelab.record;

import gluelab.files.Json;
import gluelab.bench.BenchPlan;
import gluelab.calibrate.Calibration;
import gluelab.backend.cpu.CpuDevice;
import gluelab.devlog.Devlog;
import gluelab.bench.BenchSession;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class RecordRoundTripTest {
    static final TimingConfig FAST = new TimingConfig(Mode.COLD, 0, new StopRule(3, 0, 0.5, 0.2, 20), 2);

    static BenchSession.Outcome smallRun(Path out, CpuDevice device) {
        BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.parse("rmsnorm"), Catalogue.parse("swiglu")),
                List.of(8L, 16L), List.of(Variant.EAGER, Variant.FUSED), List.of(Pass.FORWARD, Pass.BACKWARD), DType.BF16, FAST, 4);
        Calibration cal = Calibration.given("test", 50e9, 1e11);
        return BenchSession.on(device, cal).devlog(new Devlog(out.resolve("devlog.md")))
                .record(plan, new BenchSession.Recording(new RecordPublisher(new RecordStore(out), RunReport.RENDERER), RunKind.BENCH, 0.01));
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void aRunReloadsAndReRendersIdentically(@TempDir Path out) throws Exception {
        try (CpuDevice device = new CpuDevice(2)) {
            BenchSession.Outcome run = smallRun(out, device);
            assertEquals(16, run.record().rows().size());
            ExperimentRecord loaded = RecordStore.load(run.dir());
            assertEquals(Json.write(run.record()), Json.write(loaded));
            assertEquals("1", loaded.parameters().get("placements"), "the CPU's placements, recorded with the run parameters");
            assertTrue(loaded.rows().stream().allMatch(r -> r.measurement().placements() == 1));
            for (int i = 0; i < loaded.rows().size(); i++) {
                assertArrayEquals(run.record().rows().get(i).measurement().samples(), loaded.rows().get(i).measurement().samples());
            }
            String first = Files.readString(run.dir().resolve("findings.md"));
            Path again = out.resolve("again");
            new RunReport(loaded).render(again);
            assertEquals(first, Files.readString(again.resolve("findings.md")));
            assertTrue(Files.size(again.resolve("charts/ranked.png")) > 1000);
            assertTrue(Files.readString(again.resolve("charts/baselines_fwd.svg")).contains("<svg"));
            // The devlog got one entry per measurement plus start and finish notes.
            List<Devlog.Entry> entries = new Devlog(out.resolve("devlog.md")).read();
            assertEquals(16 + 2, entries.size());
            assertEquals(16, entries.stream().filter(e -> e.kind() == Devlog.Kind.MEASUREMENT).count());
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
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
            assertTrue(p.getMessage().contains("incomplete") && p.getMessage().contains("is complete: load that file"), p.getMessage());
            assertFalse(p.getMessage().contains("no valid record"), p.getMessage());
            assertEquals(16, RecordStore.load(partial.resolve("record.json")).rows().size(), "the complete record loads when named");

            List<String> problems = new ArrayList<>();
            List<ExperimentRecord> all = new RecordStore(out).loadAll(problems);
            assertEquals(1, all.size());
            assertEquals(good.getFileName().toString(), all.getFirst().id());
            assertEquals(2, problems.size(), problems.toString());
        }
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void nullAndWrongTypedFieldsAreNamed(@TempDir Path out) throws Exception {
        try (CpuDevice device = new CpuDevice(2)) {
            Path run = smallRun(out, device).dir();
            String text = Files.readString(run.resolve("record.json"));
            assertField(out, text, "spec", null, "field \"spec\" is null");
            assertField(out, text, "environment", null, "field \"environment\" is null");
            assertField(out, text, "rows", "\"x\"", "field \"rows\" must be a list of rows");
            assertField(out, text, "id", "5", "field \"id\" must be a string");
            var tree = (com.fasterxml.jackson.databind.node.ObjectNode) Json.MAPPER.readTree(text);
            ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("rows").get(3).get("measurement")).putNull("summary");
            Path f = Files.createDirectories(out.resolve("summary-null")).resolve("record.json");
            Files.writeString(f, tree.toString());
            String m = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(f.getParent())).getMessage();
            assertTrue(m.contains(f.toString()) && m.contains("field \"rows[3].measurement.summary\" is null"), m);
            ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("rows").get(3).get("measurement")).set("summary", tree.get("rows").get(2).get("measurement").get("summary"));
            ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("spec")).put("hidden", -1);
            Files.writeString(f, tree.toString());
            m = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(f)).getMessage();
            assertTrue(m.contains(f.toString()) && m.contains("\"spec\"") && m.contains("hidden must be > 0"), m);
            assertFalse(m.contains("NullPointerException"), m);
        }
    }

    private static void assertField(Path out, String text, String field, String json, String expected) throws Exception {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) Json.MAPPER.readTree(text);
        tree.set(field, json == null ? null : Json.MAPPER.readTree(json));
        if (json == null) tree.putNull(field);
        Path f = Files.createDirectories(out.resolve("bad-" + field)).resolve("record.json");
        Files.writeString(f, tree.toString());
        String m = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(f.getParent())).getMessage();
        assertTrue(m.contains(f.toString()) && m.contains(expected), m);
    }

    @Test
    void aFailedRunKeepsItsPartialFolderWithAMarker(@TempDir Path out) throws Exception {
        try (CpuDevice device = new CpuDevice(2)) {
            // An absurd token count fails the memory check inside the run.
            BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.parse("swiglu")), List.of(1L << 24),
                    List.of(Variant.EAGER), List.of(Pass.FORWARD), DType.BF16, FAST, 0);
            Devlog log = new Devlog(out.resolve("devlog.md"));
            assertThrows(IllegalArgumentException.class, () -> BenchSession.on(device, Calibration.given("t", 1e10, 1e10)).devlog(log)
                    .record(plan, new BenchSession.Recording(new RecordPublisher(new RecordStore(out)), RunKind.BENCH, 0.01)));
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
