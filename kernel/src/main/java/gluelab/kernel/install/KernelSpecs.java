package gluelab.kernel.install;

import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.files.Locations;

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
    /** The kernelspec's icons, drawn once with Java2D and kept as resources. */
    static final List<String> LOGOS = List.of("logo-32x32.png", "logo-64x64.png");

    private KernelSpecs() {}

    /** The kernels folder for --user, --prefix DIR or --jupyter-path DIR. */
    public static Path kernelsDir(String user, Path prefix, Path jupyterPath) {
        if (jupyterPath != null) return jupyterPath.resolve("kernels");
        if (prefix != null) return prefix.resolve("share/jupyter/kernels");
        return userDataDir(System.getenv()).resolve("kernels");
    }

    /**
     * The user's Jupyter data folder as jupyter_core finds it on Linux: $JUPYTER_DATA_DIR, else
     * $XDG_DATA_HOME/jupyter, else $HOME/.local/share/jupyter. $HOME, not Java's user.home (which
     * comes from the password database), so a shell with another HOME installs where its Jupyter looks.
     */
    public static Path userDataDir(Map<String, String> env) {
        String data = env.get("JUPYTER_DATA_DIR");
        if (data != null && !data.isBlank()) return Path.of(data);
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "jupyter");
        String home = env.get("HOME");
        return Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"), ".local/share/jupyter");
    }

    /**
     * Heap sizing for a long interactive session. Every cell compiles with javac, so the kernel
     * allocates fast while its live set stays small (about 53 MB); G1's defaults grow the committed
     * heap toward a quarter of the machine's memory and keep it (RSS 111 MB to 876 MB in 500 cells).
     * These let G1 spend a little more time collecting instead of growing, shrink the heap when it
     * is mostly free, and collect when the kernel sits idle, so RSS follows the live set.
     */
    static final List<String> HEAP_FLAGS = List.of("-XX:+UseG1GC", "-XX:GCTimeRatio=4", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30",
            "-XX:G1PeriodicGCInterval=5000");

    public static Map<String, Object> spec(String javaExecutable, String classpath) { return spec(javaExecutable, classpath, null); }

    /** The kernelspec; with {@code aotCache} (a trained {@link AotCache}) the JVM starts from it. */
    public static Map<String, Object> spec(String javaExecutable, String classpath, Path aotCache) {
        Map<String, Object> spec = new LinkedHashMap<>();
        List<String> argv = new ArrayList<>(List.of(javaExecutable));
        if (aotCache != null) argv.add("-XX:AOTCache=" + aotCache);
        argv.addAll(HEAP_FLAGS);
        argv.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "--add-modules", "jdk.incubator.vector", "-Djava.awt.headless=true",
                "-Dslf4j.internal.verbosity=ERROR", "--add-opens", "jdk.jshell/jdk.jshell=ALL-UNNAMED",
                "--add-opens", "jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
                "--add-opens", "jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
                "-cp", classpath, "gluelab.kernel.KernelMain", "{connection_file}"));
        spec.put("argv", argv);
        spec.put("display_name", "Java (gluelab)");
        spec.put("language", "java");
        spec.put("interrupt_mode", "message");
        spec.put("metadata", Map.of("debugger", false));
        return spec;
    }

    /** What a kernelspec runs: its java and its classpath, whose first entry is the kernel jar of the checkout it came from. */
    public record Launch(String java, String classpath) {
        /** This JVM and its classpath, as {@link #install} writes them. */
        public static Launch current() {
            return new Launch(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    String.join(File.pathSeparator, Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                            .filter(s -> !s.isBlank()).map(s -> Path.of(s).toAbsolutePath().toString()).toList()));
        }

        /** "/checkout/kernel/target/gluelab-kernel.jar (java /jdk/bin/java)". */
        public String describe() { return classpath.split(File.pathSeparator, 2)[0] + " (java " + java + ")"; }
    }

    /** What the kernelspec in {@code specDir} runs, read from its kernel.json; an error says why it cannot be read. */
    public static Launch launchOf(Path specDir) throws IOException {
        List<String> argv = new ArrayList<>();
        Json.MAPPER.readTree(specDir.resolve("kernel.json").toFile()).path("argv").forEach(a -> argv.add(a.asText()));
        int cp = argv.indexOf("-cp");
        if (argv.isEmpty() || cp < 0 || cp + 1 >= argv.size()) throw new IOException("no java and -cp in its argv");
        return new Launch(argv.getFirst(), argv.get(cp + 1));
    }

    /** {@link Launch#describe()} of the kernelspec in {@code specDir}, or why its kernel.json cannot be read. */
    public static String describe(Path specDir) {
        try {
            return launchOf(specDir).describe();
        } catch (IOException | RuntimeException e) {
            return "an unreadable kernel.json (" + e.getMessage() + ")";
        }
    }

    /**
     * "replaced kernelspec gluelab in DIR: OLD -> NEW" when {@code kernelsDir} holds a gluelab
     * kernelspec that runs another java or classpath than this one would write; empty otherwise.
     */
    public static Optional<String> replacing(Path kernelsDir) {
        Path dir = kernelsDir.resolve(NAME).toAbsolutePath().normalize();
        if (!Files.isRegularFile(dir.resolve("kernel.json"))) return Optional.empty();
        Launch now = Launch.current();
        try {
            if (launchOf(dir).equals(now)) return Optional.empty();
        } catch (IOException | RuntimeException e) {
            // described below as unreadable
        }
        return Optional.of("replaced kernelspec " + NAME + " in " + dir + ": " + describe(dir) + " -> " + now.describe());
    }

    /** Writes the kernelspec for this JVM and classpath, without an AOT cache; returns its folder. */
    public static Path install(Path kernelsDir) { return install(kernelsDir, false, note -> {}); }

    /**
     * Writes the kernelspec for this JVM and classpath; returns its folder. With {@code aotCache} a
     * training run writes the kernel's {@link AotCache} beside kernel.json first, and the kernelspec
     * starts from it; when training fails, {@code notes} hears why and the kernelspec starts without one.
     */
    public static Path install(Path kernelsDir, boolean aotCache, java.util.function.Consumer<String> notes) {
        Launch now = Launch.current();
        Path dir = kernelsDir.resolve(NAME);
        Path cache = dir.resolve(AotCache.FILE).toAbsolutePath();
        Path trained = null;
        try {
            // a cache trained for an earlier install is not this one's
            Files.deleteIfExists(cache);
            if (aotCache) Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir + ": " + e.getMessage(), e);
        }
        if (aotCache) {
            @SuppressWarnings("unchecked") List<String> argv = (List<String>) spec(now.java(), now.classpath()).get("argv");
            String failed = AotCache.train(argv, cache);
            if (failed == null) trained = cache;
            else notes.accept("no AOT cache, the kernel starts without one: " + failed);
        }
        AtomicFiles.write(dir.resolve("kernel.json"), Json.write(spec(now.java(), now.classpath(), trained)));
        for (String logo : LOGOS) AtomicFiles.write(dir.resolve(logo), logo(logo));
        remember(dir, true);
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
        remember(dir, false);
        return true;
    }

    static byte[] logo(String name) {
        try (var in = KernelSpecs.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("the kernel jar lacks its resource " + name);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Every gluelab kernelspec in the folders Jupyter searches (JUPYTER_PATH, the user's data folder,
     * the active Python environment's and the system's share/jupyter, and what {@code jupyter --paths}
     * reports when Jupyter is installed) and in {@code extraKernelDirs} (from --prefix or --jupyter-path).
     */
    public static List<Path> list(List<Path> extraKernelDirs) {
        Set<Path> roots = new LinkedHashSet<>(extraKernelDirs);
        String jp = System.getenv("JUPYTER_PATH");
        if (jp != null) for (String p : jp.split(File.pathSeparator)) if (!p.isBlank()) roots.add(Path.of(p, "kernels"));
        roots.add(kernelsDir(null, null, null));
        for (String env : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
            String prefix = System.getenv(env);
            if (prefix != null && !prefix.isBlank()) roots.add(kernelsDir(null, Path.of(prefix), null));
        }
        roots.add(Path.of("/usr/local/share/jupyter/kernels"));
        roots.add(Path.of("/usr/share/jupyter/kernels"));
        for (String data : jupyterDataPaths()) roots.add(Path.of(data, "kernels"));
        for (Path spec : remembered()) roots.add(spec.getParent());
        List<Path> found = new ArrayList<>();
        for (Path r : roots) {
            Path spec = r.toAbsolutePath().normalize().resolve(NAME);
            if (Files.isRegularFile(spec.resolve("kernel.json")) && !found.contains(spec)) found.add(spec);
        }
        return found;
    }

    /** Where the folders of kernelspecs installed by gluelab are listed, one a line (so a --prefix install is listed too). */
    static Path installsFile() { return Locations.cacheDir().resolve("kernelspecs.txt"); }

    private static List<Path> remembered() {
        try {
            return Files.isRegularFile(installsFile()) ? Files.readAllLines(installsFile()).stream().filter(l -> !l.isBlank()).map(Path::of).toList() : List.of();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** Adds or removes a kernelspec folder in the installs file; a failure here never fails the install. */
    private static synchronized void remember(Path spec, boolean add) {
        Set<Path> all = new LinkedHashSet<>(remembered());
        Path p = spec.toAbsolutePath().normalize();
        if (add ? !all.add(p) : !all.remove(p)) return;
        try {
            AtomicFiles.write(installsFile(), String.join("\n", all.stream().map(Path::toString).toList()) + "\n");
        } catch (RuntimeException e) {
            System.err.println("gluelab: could not note the kernelspec in " + installsFile() + ": " + e.getMessage());
        }
    }

    /** The data folders {@code jupyter --paths --json} reports; none when Jupyter is not installed or does not answer in time. */
    static List<String> jupyterDataPaths() {
        try {
            Process p = new ProcessBuilder("jupyter", "--paths", "--json").redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) return List.of();
            List<String> data = new ArrayList<>();
            Json.MAPPER.readTree(out).path("data").forEach(n -> data.add(n.asText()));
            return data;
        } catch (IOException | RuntimeException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
