package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.kernel.install.KernelSpecs;
import gluelab.files.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class KernelSpecsTest {
    @Test
    void installWritesAKernelspecAndUninstallRemovesIt(@TempDir Path dir) throws Exception {
        Path kernels = KernelSpecs.kernelsDir(null, dir, null);
        assertEquals(dir.resolve("share/jupyter/kernels"), kernels);
        Path spec = KernelSpecs.install(kernels);
        JsonNode k = Json.MAPPER.readTree(spec.resolve("kernel.json").toFile());
        assertEquals("Java (gluelab)", k.get("display_name").asText());
        assertEquals("message", k.get("interrupt_mode").asText());
        assertEquals("{connection_file}", k.get("argv").get(k.get("argv").size() - 1).asText());
        assertTrue(k.get("argv").toString().contains("gluelab.kernel.KernelMain"));
        assertTrue(k.get("argv").toString().contains("--sun-misc-unsafe-memory-access=allow"), "no sun.misc.Unsafe warnings in the kernel's log");
        byte[] logo = Files.readAllBytes(spec.resolve("logo-64x64.png"));
        var image = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(logo));
        assertEquals(64, image.getWidth());
        assertEquals(64, image.getHeight());
        assertTrue(KernelSpecs.list(java.util.List.of()).contains(spec.toAbsolutePath().normalize()), "list finds a --prefix install");
        assertTrue(KernelSpecs.uninstall(kernels));
        assertFalse(Files.exists(spec));
        assertFalse(KernelSpecs.list(java.util.List.of()).contains(spec.toAbsolutePath().normalize()));
        assertFalse(KernelSpecs.uninstall(kernels));
        assertEquals(dir.resolve("jp/kernels"), KernelSpecs.kernelsDir(null, null, dir.resolve("jp")));
    }

    @org.junit.jupiter.api.Tag("slow") // a training JVM of about 10 s
    @Test
    void installTrainsAnAotCacheTheKernelspecStartsFromAndNoAotCacheLeavesItOut(@TempDir Path dir) throws Exception {
        Path spec = dir.resolve("jp/kernels/gluelab");
        String out = install(jarsOnlyClassPath(dir.resolve("jars")), "--jupyter-path", dir.resolve("jp").toString());
        Path cache = spec.resolve("gluelab.aot").toAbsolutePath();
        assertTrue(Files.size(cache) > 1 << 20, "no AOT cache written: " + out);
        JsonNode argv = Json.MAPPER.readTree(spec.resolve("kernel.json").toFile()).get("argv");
        assertEquals("-XX:AOTCache=" + cache, argv.get(1).asText(), out);

        out = install(System.getProperty("java.class.path"), "--jupyter-path", dir.resolve("jp").toString(), "--no-aot-cache");
        assertFalse(Files.exists(cache), "the earlier install's cache is left: " + out);
        assertFalse(Files.readString(spec.resolve("kernel.json")).contains("AOTCache"), out);
    }

    /** This test JVM's class path with each folder (target/classes) packed into a jar in {@code jars}: an AOT cache is made from jars only. */
    static String jarsOnlyClassPath(Path jars) throws Exception {
        Files.createDirectories(jars);
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            if (!Files.isDirectory(p)) {
                out.add(entry);
                continue;
            }
            Path jar = jars.resolve(out.size() + ".jar");
            try (var zip = new java.util.jar.JarOutputStream(Files.newOutputStream(jar)); var files = Files.walk(p)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    zip.putNextEntry(new java.util.jar.JarEntry(p.relativize(f).toString().replace('\\', '/')));
                    Files.copy(f, zip);
                    zip.closeEntry();
                }
            }
            out.add(jar.toString());
        }
        return String.join(java.io.File.pathSeparator, out);
    }

    /** `gluelab kernel install ARGS` on {@code classPath}, in a process of its own; its output. */
    static String install(String classPath, String... args) throws Exception {
        String javaExe = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(javaExe, "--sun-misc-unsafe-memory-access=allow", "-cp",
                classPath, "gluelab.cli.Main", "kernel", "install"));
        cmd.addAll(java.util.List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** `gluelab kernel install --user` in a process of its own, with {@code home} as $HOME and no Jupyter data variables. */
    static Process installUser(Path home) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                "gluelab.cli.Main", "kernel", "install", "--user", "--no-aot-cache");
        pb.environment().remove("JUPYTER_DATA_DIR");
        pb.environment().remove("XDG_DATA_HOME");
        pb.environment().put("HOME", home.toString());
        pb.redirectErrorStream(true);
        return pb.start();
    }

    @org.junit.jupiter.api.Tag("slow")
    @Test
    void installUserWritesUnderHomeAndAnUnwritableHomeFails(@TempDir Path dir) throws Exception {
        Process p = installUser(dir);
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        Path spec = dir.resolve(".local/share/jupyter/kernels/gluelab/kernel.json");
        assertTrue(Files.isRegularFile(spec), "no kernelspec under $HOME: " + out);
        assertTrue(out.contains(spec.getParent().toString()), out);

        // /proc refuses new folders even to root, as a read-only home does.
        Path readOnly = Path.of("/proc/self");
        Process q = installUser(readOnly);
        String err = new String(q.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(q.waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
        assertNotEquals(0, q.exitValue(), "an install that wrote nothing reported success: " + err);
        assertTrue(err.contains("cannot write") && err.contains("/proc/self/.local/share/jupyter/kernels/gluelab"), err);
        assertFalse(err.contains("\tat "), "a stack trace: " + err);
    }

    @Test
    void theUserDataFolderFollowsJupyterCore() {
        assertEquals(Path.of("/j/kernels"), gluelab.kernel.install.KernelSpecs.userDataDir(java.util.Map.of("JUPYTER_DATA_DIR", "/j", "HOME", "/h")).resolve("kernels"));
        assertEquals(Path.of("/x/jupyter"), gluelab.kernel.install.KernelSpecs.userDataDir(java.util.Map.of("XDG_DATA_HOME", "/x", "HOME", "/h")));
        assertEquals(Path.of("/h/.local/share/jupyter"), gluelab.kernel.install.KernelSpecs.userDataDir(java.util.Map.of("HOME", "/h")));
    }
}
