package gluelab.kernel.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's AOT cache (JDK 25: JEP 483 class loading and linking, 514 one-step training, 515
 * method profiles), written by a training run at install time: a kernel then starts a quarter to a
 * third sooner (docs/benchmarks.md). The cache belongs to the JVM and jars it was trained
 * with; after a rebuild the JVM finds it stale, ignores it and starts as without one (run
 * {@code gluelab kernel install} again to train a new one).
 */
public final class AotCache {
    public static final String FILE = "gluelab.aot";
    /** A training run takes about 10 s on a 2-core machine; past this it is given up. */
    static final long TIMEOUT_S = 300;

    private AotCache() {}

    /** The training JVM's argv: the kernel's own flags and classpath, the training workload instead of the kernel. */
    static List<String> trainingArgv(List<String> kernelArgv, Path cache) {
        List<String> argv = new ArrayList<>(kernelArgv.subList(0, kernelArgv.size() - 2));
        argv.add(1, "-XX:AOTCacheOutput=" + cache);
        argv.add("gluelab.kernel.KernelTraining");
        return argv;
    }

    /** Trains {@code cache} for {@code kernelArgv}; the reason it could not, or null when it is written. */
    static String train(List<String> kernelArgv, Path cache) {
        int cp = kernelArgv.indexOf("-cp");
        for (String entry : cp < 0 ? new String[0] : kernelArgv.get(cp + 1).split(java.io.File.pathSeparator)) {
            if (!entry.endsWith(".jar")) return "the class path holds " + entry + ", and a JDK AOT cache is made from jars only (install from the built jars, as bin/gluelab does)";
        }
        Path log = cache.resolveSibling(FILE + ".log");
        try {
            Files.deleteIfExists(cache);
            Process p = new ProcessBuilder(trainingArgv(kernelArgv, cache)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "the training run took over " + TIMEOUT_S + " s (its output: " + log + ")";
            }
            if (p.exitValue() != 0 || !Files.isRegularFile(cache)) return "the training run failed with exit " + p.exitValue() + " (its output: " + log + ")";
            Files.deleteIfExists(log);
            return null;
        } catch (IOException e) {
            return "cannot run the training JVM: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
