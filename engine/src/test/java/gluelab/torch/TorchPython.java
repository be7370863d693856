package gluelab.torch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Python the torch tests run, found by the product's own rule ({@link PythonFinder}: CI's bin/test
 * exports GLUELAB_PYTHON to its virtual environment), and one Inductor cache for the whole test run.
 */
public final class TorchPython {
    private static PythonChoice found;
    private static String missing;

    private TorchPython() {}

    /** The Python with torch the rule finds, or null (then {@link #whyMissing()} says why). */
    public static synchronized PythonChoice find() {
        if (found == null && missing == null) {
            try {
                found = PythonFinder.standard().find(null, PythonSource.ARGUMENT);
            } catch (TorchException e) {
                missing = e.getMessage();
            }
        }
        return found;
    }

    public static synchronized String whyMissing() { find(); return missing; }

    /** A Python whose torch has torch.compile (2.x), or null. */
    public static PythonChoice withCompile() {
        PythonChoice p = find();
        return p != null && PythonFinder.atLeast(p.torch(), new int[] {2, 0}) ? p : null;
    }

    /** Why {@link #withCompile()} is null: the assumption's message. */
    public static String whyNoCompile() {
        PythonChoice p = find();
        return p == null ? "no Python with torch for the torch tests: " + whyMissing()
                : p.describe() + " has torch " + p.torch() + ", without torch.compile (needs 2.0 or newer; set GLUELAB_PYTHON)";
    }

    /**
     * Points every harness of this JVM at one temp Inductor cache, so the suite compiles each graph once
     * and nothing is left in the user's cache; the folder is removed when the JVM exits.
     */
    public static synchronized void useSharedInductorCache() {
        if (System.getProperty(TorchBridge.INDUCTOR_CACHE_PROPERTY) != null) return;
        try {
            Path dir = Files.createTempDirectory("gluelab-test-inductor-");
            System.setProperty(TorchBridge.INDUCTOR_CACHE_PROPERTY, dir.toString());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "inductor-cache-cleanup"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp folder: the system cleans it up otherwise
        }
    }
}
