package gluelab.kernel.install;

import gluelab.files.AtomicFiles;
import gluelab.files.Json;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;

/**
 * The "Java (gluelab)" kernelspec: a kernel.json whose argv starts one JVM on this installation's
 * classpath with the module flags JShell and the engine need, interrupt_mode message.
 */
public final class KernelSpecs {
    public static final String NAME = "gluelab";

    private KernelSpecs() {}

    /** The kernels folder for --user, --prefix DIR or --jupyter-path DIR. */
    public static Path kernelsDir(String user, Path prefix, Path jupyterPath) {
        if (jupyterPath != null) return jupyterPath.resolve("kernels");
        if (prefix != null) return prefix.resolve("share/jupyter/kernels");
        String data = System.getenv("JUPYTER_DATA_DIR");
        if (data != null && !data.isBlank()) return Path.of(data, "kernels");
        return Path.of(System.getProperty("user.home"), ".local/share/jupyter/kernels");
    }

    public static Map<String, Object> spec(String javaExecutable, String classpath) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("argv", List.of(javaExecutable, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Djava.awt.headless=true",
                "-Dslf4j.internal.verbosity=ERROR", "--add-opens", "jdk.jshell/jdk.jshell=ALL-UNNAMED",
                "--add-opens", "jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
                "--add-opens", "jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
                "-cp", classpath, "gluelab.kernel.KernelMain", "{connection_file}"));
        spec.put("display_name", "Java (gluelab)");
        spec.put("language", "java");
        spec.put("interrupt_mode", "message");
        spec.put("metadata", Map.of("debugger", false));
        return spec;
    }

    /** Writes the kernelspec for this JVM and classpath; returns its folder. */
    public static Path install(Path kernelsDir) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = String.join(File.pathSeparator, Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(s -> !s.isBlank()).map(s -> Path.of(s).toAbsolutePath().toString()).toList());
        Path dir = kernelsDir.resolve(NAME);
        AtomicFiles.write(dir.resolve("kernel.json"), Json.write(spec(java, cp)));
        return dir;
    }

    public static boolean uninstall(Path kernelsDir) {
        Path dir = kernelsDir.resolve(NAME);
        if (!Files.isDirectory(dir)) return false;
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + dir + ": " + e.getMessage(), e);
        }
        return true;
    }

    /** Every gluelab kernelspec Jupyter would find: JUPYTER_PATH, the user's and the system folders. */
    public static List<Path> list() {
        List<Path> roots = new ArrayList<>();
        String jp = System.getenv("JUPYTER_PATH");
        if (jp != null) for (String p : jp.split(File.pathSeparator)) if (!p.isBlank()) roots.add(Path.of(p, "kernels"));
        roots.add(kernelsDir(null, null, null));
        roots.add(Path.of("/usr/local/share/jupyter/kernels"));
        roots.add(Path.of("/usr/share/jupyter/kernels"));
        List<Path> found = new ArrayList<>();
        for (Path r : roots) if (Files.isRegularFile(r.resolve(NAME).resolve("kernel.json"))) found.add(r.resolve(NAME));
        return found;
    }
}
