package gluelab.kernel;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** The kernel as Jupyter starts it, a process of its own on a connection file: what it refuses and what it warns about. */
@Tag("slow")
class KernelProcessTest {
    static Process start(Path connectionFile) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                "gluelab.kernel.KernelMain", connectionFile.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    static String file(int[] ports, String keyField) {
        return "{\"shell_port\": " + ports[0] + ", \"iopub_port\": " + ports[1] + ", \"stdin_port\": " + ports[2] + ", \"control_port\": "
                + ports[3] + ", \"hb_port\": " + ports[4] + ", \"ip\": \"127.0.0.1\", " + keyField
                + "\"transport\": \"tcp\", \"signature_scheme\": \"hmac-sha256\"}";
    }

    @Test
    void everyPortZeroIsRefusedInOneLine(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("kernel-zero.json"), file(new int[5], "\"key\": \"k\", "));
        Process p = start(f);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("a kernel on port 0 did not exit");
        }
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, p.exitValue(), err);
        assertTrue(err.contains("kernel-zero.json") && err.contains("shell_port, iopub_port, stdin_port, control_port, hb_port are 0"), err);
    }

    @Test
    void aConnectionFileWithoutAKeyIsWarnedAboutLoudly(@TempDir Path dir) throws Exception {
        for (String key : List.of("\"key\": \"\", ", "")) {
            Path f = Files.writeString(dir.resolve("kernel-nokey.json"), file(TestPorts.distinct(5), key));
            Process p = start(f);
            try {
                // stderr is read on a thread of its own: a kernel that never warns must fail the test, not hang it.
                var warning = new java.util.concurrent.CompletableFuture<String>();
                Thread.ofVirtual().start(() -> {
                    try (BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = err.readLine()) != null; ) if (line.contains("has no key")) warning.complete(line);
                    } catch (java.io.IOException ignored) {
                        // the process ended
                    }
                    warning.complete(null);
                });
                String line = warning.get(120, TimeUnit.SECONDS);
                assertNotNull(line, "no warning for " + key);
                assertTrue(line.contains("WARNING") && line.contains("kernel-nokey.json") && line.contains("not signed"), line);
                assertTrue(p.isAlive(), "an unsigned kernel still starts (Jupyter allows it), with the warning");
            } finally {
                p.destroy();
                p.waitFor(60, TimeUnit.SECONDS);
            }
        }
    }
}
