package gluelab.record;

import gluelab.calibrate.Calibration;
import gluelab.backend.cpu.CpuDevice;
import gluelab.files.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** One record lifecycle (begin, save, render, commit, FAILED) and the typed run kind. */
class RecordPublisherTest {
    static ExperimentRecord record(String id, RunKind kind) {
        try (CpuDevice device = new CpuDevice(1)) {
            return ExperimentRecord.builder(id, kind, gluelab.model.Presets.LLAMA_3_8B).parameters(Map.of("model", "llama-3-8b"))
                    .environment(Environment.capture(device.facts(), Calibration.given("test", 50e9, 1e11), Instant.now())).build();
        }
    }

    @Test
    void aPublishedRecordIsSavedRenderedAndRenamedWhole(@TempDir Path out) {
        var published = new RecordPublisher(new RecordStore(out), (r, dir) -> {
            assertTrue(Files.isRegularFile(dir.resolve(RecordStore.RECORD_FILE)), "the record is saved before rendering");
            writeQuietly(dir.resolve("findings.md"), "rendered " + r.id());
        }).publish(record("run-a", RunKind.BENCH));
        assertEquals(out.resolve("run-a"), published.dir());
        assertTrue(Files.isRegularFile(published.dir().resolve("findings.md")));
        assertFalse(Files.exists(out.resolve(".run-a.partial")));
        assertEquals(RunKind.BENCH, RecordStore.load(published.dir()).kind());
    }

    @Test
    void aFailureLeavesTheSavedRecordAndAFailedMarker(@TempDir Path out) {
        RecordPublisher broken = new RecordPublisher(new RecordStore(out), (r, dir) -> { throw new IllegalStateException("no fonts"); });
        assertThrows(IllegalStateException.class, () -> broken.publish(record("run-b", RunKind.DEMO)));
        Path partial = out.resolve(".run-b.partial");
        assertTrue(readQuietly(partial.resolve(RecordStore.FAILED_FILE)).contains("no fonts"));
        assertEquals("run-b", RecordStore.load(partial.resolve(RecordStore.RECORD_FILE)).id(), "nothing measured is lost");
        var e = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(partial));
        assertTrue(e.getMessage().contains("failed (java.lang.IllegalStateException: no fonts)"), e.getMessage());

        // Publishing a run whose folder exists fails the same way (the experiment folder's publish had no FAILED path before).
        RecordPublisher plain = new RecordPublisher(new RecordStore(out));
        plain.publish(record("run-c", RunKind.FIX));
        assertThrows(UncheckedIOException.class, () -> plain.publish(record("run-c", RunKind.FIX)));
        assertTrue(readQuietly(out.resolve(".run-c.partial").resolve(RecordStore.FAILED_FILE)).contains("already exists"));
    }

    @Test
    void workThatThrowsLeavesAMarkerAndTheErrorGoesOn(@TempDir Path out) {
        RecordPublisher p = new RecordPublisher(new RecordStore(out));
        var e = assertThrows(IllegalArgumentException.class, () -> p.publish("run-d", () -> { throw new IllegalArgumentException("needs about 9 GiB"); }));
        assertEquals("needs about 9 GiB", e.getMessage());
        assertTrue(readQuietly(out.resolve(".run-d.partial").resolve(RecordStore.FAILED_FILE)).contains("needs about 9 GiB"));
    }

    @Test
    void aReplacedRecordSwapsInWhole(@TempDir Path out) {
        RecordPublisher p = new RecordPublisher(new RecordStore(out));
        p.replace("llama-3-8b", record("sweep-1", RunKind.SWEEP));
        Path dir = p.replace("llama-3-8b", record("sweep-2", RunKind.SWEEP));
        assertEquals("sweep-2", RecordStore.load(dir).id());
        assertFalse(Files.exists(out.resolve(".llama-3-8b.old")));
    }

    @Test
    void runKindsAreTheStringsRecordsHoldAndUnknownOnesStillLoad(@TempDir Path out) throws Exception {
        for (String id : new String[]{"demo", "bench", "baselines", "fix", "shard", "sweep"}) assertEquals(id, RunKind.parse(id).id());
        var bad = assertThrows(IllegalArgumentException.class, () -> RunKind.parse("benhc"));
        assertTrue(bad.getMessage().contains("unknown run kind 'benhc'") && bad.getMessage().contains("baselines"), bad.getMessage());

        Path dir = new RecordPublisher(new RecordStore(out)).publish(record("run-e", RunKind.BASELINES)).dir();
        Path file = dir.resolve(RecordStore.RECORD_FILE);
        String text = Files.readString(file);
        assertTrue(text.contains("\"kind\" : \"baselines\"") || text.contains("\"kind\":\"baselines\""), "written as today's string");
        // A kind written by another version (or an old test run) loads as OTHER: the kind decides nothing, the rows are all there.
        Files.writeString(file, text.replace("\"baselines\"", "\"nightly-probe\""));
        ExperimentRecord old = RecordStore.load(dir);
        assertEquals(RunKind.OTHER, old.kind());
        assertEquals(Json.write(record("run-e", RunKind.OTHER).rows()), Json.write(old.rows()));
    }

    @Test
    void theBuilderRefusesARecordWithoutItsIdentity() {
        assertThrows(IllegalArgumentException.class, () -> ExperimentRecord.builder(" ", RunKind.BENCH, gluelab.model.Presets.LLAMA_3_8B));
        var e = assertThrows(IllegalArgumentException.class, () -> ExperimentRecord.builder("x", RunKind.BENCH, gluelab.model.Presets.LLAMA_3_8B).build());
        assertTrue(e.getMessage().contains("environment"), e.getMessage());
    }

    private static void writeQuietly(Path p, String s) {
        try {
            Files.writeString(p, s);
        } catch (java.io.IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
