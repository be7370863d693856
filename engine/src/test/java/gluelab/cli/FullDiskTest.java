package gluelab.cli;

import gluelab.workflow.stack.StackSamples;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static gluelab.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Outputs on a full disk and in a read-only folder, on a real small filesystem ({@link SmallDisk}):
 * one line naming the path, a non-zero exit, and nothing half-written left behind.
 */
@Tag("slow")
class FullDiskTest {
    /** One error line naming {@code path}, and nothing else on stderr but progress. */
    static void assertOneLineError(CliTest.Result r, Path path, String why) {
        assertNotEquals(0, r.code(), r.toString());
        List<String> errors = r.err().lines().filter(l -> l.contains("error:")).toList();
        assertEquals(1, errors.size(), r.err());
        assertTrue(errors.getFirst().contains(path.toString()) && errors.getFirst().contains(why), errors.getFirst());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    @Test
    void prWriteToAFullDiskOrAReadOnlyFolderFailsInOneLineAndLeavesNoHalfText(@TempDir Path dir) throws Exception {
        Path stack = dir.resolve("stack.json");
        StackSamples.stack().save(stack);
        try (SmallDisk full = SmallDisk.mount(dir.resolve("full"), 64, true, false)) {
            Path out = full.root.resolve("pr");
            assertOneLineError(run("pr", "write", stack.toString(), "--out", out.toString()), out, "No space left on device");
            assertEquals(List.of(), full.leftovers(), "half-written texts or temp files");
        }
        try (SmallDisk ro = SmallDisk.mount(dir.resolve("ro"), 64, false, true)) {
            Path out = ro.root.resolve("pr");
            assertOneLineError(run("pr", "write", stack.toString(), "--out", out.toString()), out, "not writable");
            assertEquals(List.of(), ro.leftovers());
        }
    }

    @Test
    void benchChartsToAFullDiskFailInOneLineAfterTheRowsAndLeaveNoHalfImage(@TempDir Path dir) throws Exception {
        try (SmallDisk full = SmallDisk.mount(dir.resolve("full"), 64, true, false)) {
            Path base = full.root.resolve("sbs");
            CliTest.Result r = run("bench", "cast", "--device", "cpu", "--tokens", "16", "--check", "0", "--timeout", "0.2", "--min-time", "0.01",
                    "--chart", base.toString());
            assertTrue(r.out().contains("cast"), "the rows are printed before the chart fails: " + r.out());
            assertOneLineError(r, base, "No space left on device");
            assertEquals(List.of(), full.leftovers(), "half-written PNG or SVG");
        }
        try (SmallDisk ro = SmallDisk.mount(dir.resolve("ro"), 64, false, true)) {
            Path base = ro.root.resolve("sbs");
            CliTest.Result r = run("bench", "cast", "--device", "cpu", "--tokens", "16", "--check", "0", "--timeout", "0.2", "--min-time", "0.01",
                    "--chart", base.toString());
            assertOneLineError(r, base, "not writable");
        }
    }

    @Test
    void tuneWithAFullOrReadOnlyCacheFailsInOneLineNamingThePicksPath(@TempDir Path dir) throws Exception {
        for (boolean readOnly : new boolean[]{false, true}) {
            try (SmallDisk cache = SmallDisk.mount(dir.resolve(readOnly ? "ro" : "full"), 64, !readOnly, readOnly)) {
                Process p = process(dir, cache.root, "tune", "rmsnorm", "--device", "cpu", "--tokens", "16", "--passes", "fwd");
                String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(p.waitFor(300, java.util.concurrent.TimeUnit.SECONDS), "tune did not end");
                CliTest.Result r = new CliTest.Result(p.exitValue(), "", err);
                assertOneLineError(r, cache.root.resolve("tune"), readOnly ? "Read-only file system" : "No space left on device");
                assertTrue(r.err().contains("gluelab tune: error: tuned picks not saved: cannot write "), r.err());
                assertEquals(List.of(), cache.leftovers(), "half-written picks");
            }
        }
    }

    @Test
    void aRecordPublishedToAFullDiskFailsNamingItsFileAndLeavesNoHalfRecord(@TempDir Path dir) throws Exception {
        gluelab.record.ExperimentRecord record;
        try (var device = new gluelab.backend.cpu.CpuDevice(1)) {
            record = gluelab.record.ExperimentRecord.builder("bench-full", gluelab.record.RunKind.BENCH, gluelab.model.Presets.LLAMA_3_8B)
                    .environment(gluelab.record.Environment.capture(device.facts(), gluelab.calibrate.Calibration.given("test", 50e9, 1e11),
                            java.time.Instant.now())).build();
        }
        try (SmallDisk full = SmallDisk.mount(dir.resolve("full"), 64, true, false)) {
            var publisher = new gluelab.record.RecordPublisher(new gluelab.record.RecordStore(full.root.resolve("runs")));
            var e = assertThrows(java.io.UncheckedIOException.class, () -> publisher.publish(record));
            assertTrue(e.getMessage().contains(full.root.resolve("runs/.bench-full.partial/record.json").toString())
                    && e.getMessage().contains("No space left on device"), e.getMessage());
            assertEquals(List.of(), full.leftovers(), "a half-written record or temp file");
            assertFalse(Files.exists(full.root.resolve("runs/bench-full")), "nothing published");
        }
    }

    /** gluelab in a process of its own, its cache on {@code cache} (GLUELAB_CACHE is read from the environment). */
    static Process process(Path dir, Path cache, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "gluelab.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("GLUELAB_CACHE", cache.toString());
        return pb.start();
    }
}
