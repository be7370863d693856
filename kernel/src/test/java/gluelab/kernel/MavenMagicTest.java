package gluelab.kernel;

import gluelab.kernel.eval.Evaluator;
import gluelab.kernel.magic.MavenDeps;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** %maven against the local Maven repository the build itself used (offline: CI needs no network). */
@Tag("slow")
class MavenMagicTest {
    /** The local repository holding commons-math3 (a dependency of the engine): four folders above its jar. */
    static Path localRepository() throws Exception {
        Path jar = Path.of(org.apache.commons.math3.util.FastMath.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return jar.getParent().getParent().getParent().getParent().getParent().getParent();
    }

    @Test
    void resolvesFromTheLocalRepositoryOffline() throws Exception {
        MavenDeps.Resolved r = MavenDeps.resolve(List.of("org.apache.commons:commons-math3:3.6.1"), localRepository(), true);
        assertEquals(1, r.jars().size(), r.toString());
        assertTrue(Files.isRegularFile(r.jars().getFirst()));
        assertTrue(r.jars().getFirst().getFileName().toString().equals("commons-math3-3.6.1.jar"));
        var bad = assertThrows(IllegalArgumentException.class, () -> MavenDeps.resolve(List.of("not-a-coordinate"), localRepository(), true));
        assertTrue(bad.getMessage().contains("not-a-coordinate"));
        var missing = assertThrows(IllegalArgumentException.class, () -> MavenDeps.resolve(List.of("org.example.none:nothing:9.9"), localRepository(), true));
        assertTrue(missing.getMessage().contains("org.example.none:nothing:9.9") && missing.getMessage().contains("offline"), missing.getMessage());
    }

    @Test
    void theMagicAddsTheJarsForTheNextCells(@TempDir Path dir) throws Exception {
        // A jar the session does not have yet, installed into a local repository of its own.
        Path src = Files.writeString(dir.resolve("Hello.java"), "package ext; public class Hello { public static String hi() { return \"hi from a jar\"; } }");
        Path classes = Files.createDirectories(dir.resolve("classes"));
        assertEquals(0, javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), src.toString()));
        Path repo = dir.resolve("repo");
        Path art = Files.createDirectories(repo.resolve("org/example/hello/1.0"));
        try (var jar = new java.util.jar.JarOutputStream(Files.newOutputStream(art.resolve("hello-1.0.jar")))) {
            jar.putNextEntry(new java.util.jar.JarEntry("ext/Hello.class"));
            jar.write(Files.readAllBytes(classes.resolve("ext/Hello.class")));
        }
        Files.writeString(art.resolve("hello-1.0.pom"), "<project><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId><artifactId>hello</artifactId><version>1.0</version></project>");
        MavenDeps.Resolved r = MavenDeps.resolve(List.of("org.example:hello:1.0"), repo, true);
        try (Evaluator e = new Evaluator()) {
            for (Path jar : r.jars()) e.addToClasspath(jar.toString());
            assertEquals("hi from a jar", e.eval("ext.Hello.hi()"));
        }
        try (Evaluator e = new Evaluator()) {
            CellRunner cells = new CellRunner(e);
            Object out = cells.run("%jars " + repo.resolve("org/example/hello/1.0") + "/*.jar");
            assertTrue(String.valueOf(out).contains("hello-1.0.jar"), String.valueOf(out));
            assertEquals("hi from a jar", cells.run("ext.Hello.hi()"));
        }
    }
}
