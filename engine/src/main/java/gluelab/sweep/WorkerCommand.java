package gluelab.sweep;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command that starts gluelab again as a sweep process ({@link ShardMain}): this process's own Java runtime (the bundle's,
 * on a node) and class path, so a worker runs exactly the code that planned the sweep. {@code env}
 * is added to a local worker's environment.
 */
public record WorkerCommand(Path javaBinary, String classPath, Map<String, String> env) {
    /** The main class of the processes a sweep starts. */
    public static final String MAIN = ShardMain.class.getName();

    public WorkerCommand {
        env = Map.copyOf(env);
    }

    public static WorkerCommand current() {
        return new WorkerCommand(Path.of(System.getProperty("java.home"), "bin", "java"), currentClassPath(), Map.of());
    }

    /**
     * This JVM's class path when gluelab is on it; else (gluelab loaded by another launcher, such as
     * JUnit's console launcher over the bundle) every jar beside gluelab's own, as in the bundle's lib/app.
     */
    static String currentClassPath() {
        String cp = System.getProperty("java.class.path", "");
        try {
            Path self = Path.of(WorkerCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
            for (String entry : cp.split(java.io.File.pathSeparator)) {
                if (!entry.isBlank() && Path.of(entry).toAbsolutePath().equals(self)) return cp;
            }
            return java.nio.file.Files.isRegularFile(self) ? self.getParent().resolve("*").toString() : self.toString();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return cp;
        }
    }

    /** The same command with these environment variables set for the worker (e.g. GLUELAB_CACHE). */
    public WorkerCommand withEnv(Map<String, String> more) {
        Map<String, String> all = new HashMap<>(env);
        all.putAll(more);
        return new WorkerCommand(javaBinary, classPath, all);
    }

    public List<String> command(List<String> gluelabArgs) { return command(MAIN, gluelabArgs); }

    /** The command that runs {@code mainClass} (another of gluelab's process mains, e.g. a confirmation worker) with {@code args}. */
    public List<String> command(String mainClass, List<String> args) {
        // The launcher's flags (bin/gluelab, the bundle's bin/gluelab): the CPU device's loops use the Vector API.
        List<String> cmd = new ArrayList<>(List.of(javaBinary.toString(), "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "--add-modules", "jdk.incubator.vector", "-Djava.awt.headless=true", "-Dslf4j.internal.verbosity=ERROR", "-cp", classPath, mainClass));
        cmd.addAll(args);
        return cmd;
    }
}
