package gluelab.devlog;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class DevlogTest {
    @Test
    void entriesRoundTripWithKinds(@TempDir Path dir) {
        Devlog log = new Devlog(dir.resolve("effort/devlog.md"));
        log.measurement("rmsnorm fwd 4096: 14.8 ms");
        log.decision("try the fused form first\n## not a header");
        log.deadEnd("per-site regions: host time ate the win");
        List<Devlog.Entry> e = log.read();
        assertEquals(3, e.size());
        assertEquals(Devlog.Kind.DECISION, e.get(1).kind());
        assertTrue(e.get(1).text().contains("## not a header"));
        assertThrows(IllegalArgumentException.class, () -> log.note("  "));
    }

    @Test
    void malformedHeadersNameFileAndLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("devlog.md");
        java.nio.file.Files.writeString(f, "## 2026-11-30T09:00:00Z [note]\nfine\n\n## yesterday [note]\ntext\n");
        var time = assertThrows(IllegalArgumentException.class, () -> new Devlog(f).read());
        assertTrue(time.getMessage().contains(f + ":4") && time.getMessage().contains("'yesterday'"), time.getMessage());
        java.nio.file.Files.writeString(f, "# effort\n\n## 2026-11-30T09:00:00Z [rumour]\ntext\n");
        var kind = assertThrows(IllegalArgumentException.class, () -> new Devlog(f).read());
        assertTrue(kind.getMessage().contains(f + ":3") && kind.getMessage().contains("[rumour]") && kind.getMessage().contains("dead_end"), kind.getMessage());
    }

    @Test @Tag("slow") // starts a second JVM
    void threadsAndAnotherProcessAppendingAtOnceLoseNothing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("devlog.md");
        int threads = 4, perThread = 200, childEntries = 300;
        // A second JVM appends while this one does.
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Writer.class.getName(),
                file.toString(), Integer.toString(childEntries)).inheritIO().start();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        String payload = "x".repeat(3000);
        for (int t = 0; t < threads; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                Devlog log = new Devlog(file);
                for (int i = 0; i < perThread; i++) log.measurement("thread " + id + " entry " + i + " " + payload);
            }));
        }
        for (Future<?> f : futures) f.get();
        pool.shutdown();
        assertTrue(child.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue());
        List<Devlog.Entry> entries = new Devlog(file).read();
        assertEquals(threads * perThread + childEntries, entries.size());
        Set<String> seen = new HashSet<>();
        for (Devlog.Entry e : entries) {
            String[] words = e.text().split(" ");
            assertTrue(e.text().endsWith(payload), "torn entry: " + e.text().substring(0, Math.min(80, e.text().length())));
            assertTrue(seen.add(words[0] + words[1] + words[3]), "duplicate " + e.text().substring(0, 40));
        }
    }

    /** The second process of the concurrency test. */
    public static final class Writer {
        public static void main(String[] args) {
            Devlog log = new Devlog(Path.of(args[0]));
            String payload = "x".repeat(3000);
            for (int i = 0; i < Integer.parseInt(args[1]); i++) log.note("child 0 entry " + i + " " + payload);
        }
    }
}
