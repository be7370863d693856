package gluelab.cli;

import gluelab.record.RecordStore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * SIGINT during bench and demo: bench took 41 s and exited 0 or kept nothing; now it stops at once,
 * keeps what it measured (printed rows; the demo's partial record) and exits 130 (issue 23).
 */
@Tag("slow") // starts a JVM that measures until it is stopped
class StopSignalsTest {
    /** The bench progress line once a measurement has landed (not the correctness checks' "check [...]" before it). */
    static final Pattern ROW_DONE = Pattern.compile("^bench \\[.*\\] ([1-9]\\d*)/\\d+");

    record Stopped(int code, String out, String err, double secondsToStop) {}

    /** Starts gluelab with {@code args}, sends SIGINT once a measurement has landed, and waits for it to end. */
    static Stopped interruptAfterTheFirstRow(Path dir, String... args) throws Exception {
        assumeTrue(new ProcessBuilder("kill", "-l").start().waitFor() == 0, "no kill command");
        List<String> cmd = new ArrayList<>(defaultSigint());
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "gluelab.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(dir.resolve("stdout").toFile());
        pb.environment().put("GLUELAB_CACHE", dir.resolve("cache").toString());
        Process p = pb.start();
        StringBuilder err = new StringBuilder();
        try (var in = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            boolean sent = false;
            long sentAt = 0;
            for (String line; (line = in.readLine()) != null; ) {
                err.append(line).append('\n');
                if (!sent && ROW_DONE.matcher(line).find()) {
                    sentAt = System.nanoTime();
                    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
                    sent = true;
                }
            }
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "still running after SIGINT");
            assertTrue(sent, "no measurement landed: " + err);
            return new Stopped(p.exitValue(), Files.readString(dir.resolve("stdout")), err.toString(), (System.nanoTime() - sentAt) / 1e9);
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * A command prefix that gives the child SIGINT's default disposition. A test JVM started in the background
     * by a non-interactive shell has SIGINT ignored, its children inherit that, and a JVM that starts with
     * SIGINT ignored leaves it ignored (as a shell's background job should): the bench would run to its end.
     * GNU env resets it; without one, a child of a process that ignores SIGINT cannot be tested here.
     */
    static List<String> defaultSigint() throws Exception {
        if (new ProcessBuilder("env", "--default-signal=INT", "true").start().waitFor() == 0) return List.of("env", "--default-signal=INT");
        assumeTrue(!sigintIgnored(), "SIGINT is ignored in this test's process and no env --default-signal to reset it for the child");
        return List.of();
    }

    static boolean sigintIgnored() throws Exception {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) return false;
        for (String line : Files.readAllLines(status))
            if (line.startsWith("SigIgn:")) return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << 1)) != 0;
        return false;
    }

    @Test
    void benchStopsAtOnceShowsTheRowsSoFarAndExits130(@TempDir Path dir) throws Exception {
        Stopped s = interruptAfterTheFirstRow(dir, "bench", "rmsnorm", "swiglu", "add_rmsnorm", "--device", "cpu", "--tokens", "2k,4k,8k", "--passes", "fwd,bwd", "--check", "0");
        assertEquals(130, s.code(), s.toString());
        assertTrue(s.err().contains("STOPPED by SIGINT after "), s.err());
        assertTrue(s.out().contains("rmsnorm"), "the rows measured so far: " + s.out());
        // Generous for a loaded 2-core machine; it was 41 s.
        assertTrue(s.secondsToStop() < 15, "took " + s.secondsToStop() + " s to stop");
    }

    @Test
    void demoKeepsAPartialRecordThatReportReads(@TempDir Path dir) throws Exception {
        Stopped s = interruptAfterTheFirstRow(dir, "demo", "--device", "cpu", "--out", dir.resolve("out").toString(), "--tokens", "64,128,256", "--passes", "fwd");
        assertEquals(130, s.code(), s.toString());
        assertTrue(s.err().contains("STOPPED by SIGINT: the "), s.err());
        Path partial;
        try (var l = Files.list(dir.resolve("out"))) {
            partial = l.filter(d -> d.getFileName().toString().endsWith(".partial")).findFirst().orElseThrow(() -> new AssertionError("no partial run: " + s));
        }
        assertTrue(Files.readString(partial.resolve(RecordStore.FAILED_FILE)).contains("stopped by SIGINT after"), s.toString());
        var record = RecordStore.load(partial.resolve(RecordStore.RECORD_FILE));
        assertFalse(record.rows().isEmpty());
        assertTrue(record.parameters().get("notes").contains("the rest were not measured"), record.parameters().toString());
    }
}
