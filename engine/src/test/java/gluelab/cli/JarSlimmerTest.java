package gluelab.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.junit.jupiter.api.Assertions.*;

class JarSlimmerTest {
    /** A real library jar (picocli, from this test's class path) stored uncompressed: same entries, same bytes, still loads. */
    @Test
    void aStoredJarHoldsTheSameEntriesUncompressed(@TempDir Path dir) throws Exception {
        Path source = Path.of(picocli.CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path stored = dir.resolve("stored.jar");
        JarSlimmer.store(source, stored);
        Map<String, byte[]> before = entries(source), after = entries(stored);
        assertEquals(before.keySet(), after.keySet());
        for (String name : before.keySet()) assertArrayEquals(before.get(name), after.get(name), name);
        try (JarFile jf = new JarFile(stored.toFile())) {
            assertNotNull(jf.getManifest());
            for (ZipEntry e : Collections.list(jf.entries())) assertEquals(ZipEntry.STORED, e.getMethod(), e.getName());
        }
        try (URLClassLoader l = new URLClassLoader(new java.net.URL[]{stored.toUri().toURL()}, null)) {
            assertEquals("picocli.CommandLine", l.loadClass("picocli.CommandLine").getName());
        }
    }

    static Map<String, byte[]> entries(Path jar) throws Exception {
        Map<String, byte[]> out = new TreeMap<>();
        try (JarFile jf = new JarFile(jar.toFile())) {
            for (var e : Collections.list(jf.entries())) {
                try (var in = jf.getInputStream(e)) {
                    out.put(e.getName(), in.readAllBytes());
                }
            }
        }
        return out;
    }
}
