package gluelab.sweep;

import gluelab.model.SpecRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A killed sweep coordinator left its worker running (issue 23's probe): the worker now ends with it. */
@Tag("slow") // starts a worker JVM, which calibrates
class OrphanedWorkerTest {
    @Test
    void aWorkerEndsWhenItsCoordinatorIsKilled(@TempDir Path tmp) throws Exception {
        assumeTrue(Path.of("/bin/sh").toFile().canExecute(), "no /bin/sh");
        SweepDir dir = SweepDir.create(tmp.resolve("sweep"), PlanFile.parse(LocalSweepTest.PLAN, "plan.json", SpecRegistry.presets()));
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The worker's input is a named pipe this test holds open, so it never sees end of input: without the
        // watch on its parent it would wait on it forever. sh stands in for the coordinator: it starts the worker, prints its pid, and waits.
        Path input = tmp.resolve("input");
        assumeTrue(new ProcessBuilder("mkfifo", input.toString()).start().waitFor() == 0, "no mkfifo");
        var holder = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new java.io.FileOutputStream(input.toFile());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String worker = "'" + javaBin + "' --add-modules jdk.incubator.vector -cp '" + System.getProperty("java.class.path") + "' gluelab.sweep.ShardMain worker '"
                + dir.root() + "' --device cpu";
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", worker + " <'" + input + "' 2>'" + tmp.resolve("worker.log") + "' & echo pid $!; wait");
        pb.environment().put("GLUELAB_CACHE", tmp.resolve("cache").toString());
        Process coordinator = pb.start();
        ProcessHandle workerProcess = null;
        try (var out = new BufferedReader(new InputStreamReader(coordinator.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("pid ")) workerProcess = ProcessHandle.of(Long.parseLong(line.substring(4).trim())).orElseThrow();
                if (line.startsWith("unusable ")) fail("the worker could not open its device: " + line);
                if (line.startsWith("ready ")) break;
            }
            assertNotNull(workerProcess, "the worker did not start");
            String log = tmp.resolve("worker.log").toString();
            assertTrue(workerProcess.isAlive(), () -> "the worker ended before its coordinator: " + readQuietly(Path.of(log)));
            coordinator.destroyForcibly().waitFor();
            try {
                workerProcess.onExit().get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                fail("the worker outlived its coordinator by 60 s");
            }
        } finally {
            holder.thenAccept(o -> { try { o.close(); } catch (java.io.IOException ignored) { } });
            if (workerProcess != null) workerProcess.destroyForcibly();
            coordinator.destroyForcibly();
        }
    }

    static String readQuietly(Path p) {
        try {
            return java.nio.file.Files.readString(p);
        } catch (java.io.IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
