package gluelab.torch;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The Python the torch bridge runs, why that one, and the torch it imports. */
public record PythonChoice(Path python, PythonSource source, String torch) {
    private static final Set<Path> ANNOUNCED = ConcurrentHashMap.newKeySet();

    /** "python: /x/bin/python (GLUELAB_PYTHON)". */
    public String describe() { return "python: " + python + " (" + source.label() + ")"; }

    /** Where {@link #announceOnce()} says it: stderr on the CLI; the Jupyter kernel shows it as a cell's output line. */
    private static volatile java.util.function.Consumer<String> notices = System.err::println;

    /** Sends the one-line announcements to {@code sink} instead of stderr. */
    public static void notices(java.util.function.Consumer<String> sink) { notices = sink; }

    /** Says {@link #describe()} the first time this process uses this Python. */
    public void announceOnce() { if (ANNOUNCED.add(python)) notices.accept(describe()); }

    /** Prints {@link #describe()} to {@code out} unless this process said it before; true when it printed. */
    public boolean announceOnce(java.io.PrintStream out) {
        if (!ANNOUNCED.add(python)) return false;
        out.println(describe());
        return true;
    }
}
