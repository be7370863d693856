package gluelab.kernel.eval;

import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.VarSnippet;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps a long JShell session from growing with every cell.
 *
 * <p>JShell records every snippet it ever ran, with its wrapped source, class name and bytes, and
 * its pooled javac contexts keep the symbols and names of every snippet class. None of that is
 * needed again for a one-shot snippet (a statement, an expression, a dropped temporary, an
 * erroneous snippet): nothing can refer to it. This class removes such snippets from JShell's
 * books and, every {@link #POOL_CELLS} cells, lets the javac contexts be rebuilt.
 *
 * <p>JShell offers no API for this, so it reaches into {@code jdk.jshell} internals (the JVM must
 * open {@code jdk.jshell/jdk.jshell}, {@code jdk.compiler/com.sun.tools.javac.api} and
 * {@code jdk.compiler/com.sun.tools.javac.file}, as the kernelspec and launchers do). If those internals are not reachable (another JDK, no opens), it
 * says so once and the session simply keeps growing as plain JShell does.
 */
final class ShellCompactor {
    /** Cells between rebuilds of javac's pooled contexts; a rebuild costs the next cell about 0.2 s. */
    static final int POOL_CELLS = 250;

    private final JShell shell;
    private final Books books;
    private final String unavailable;
    private int cells;

    ShellCompactor(JShell shell) {
        this.shell = shell;
        Books b = null;
        String why = null;
        try {
            b = new Books(shell);
        } catch (ReflectiveOperationException | RuntimeException e) {
            why = e.toString();
        }
        books = b;
        unavailable = why;
        if (why != null) {
            System.err.println("gluelab: cannot compact JShell's state (" + why + "); the session's memory grows with every cell");
        }
    }

    /** Null when compaction works, else why not. */
    String unavailable() { return unavailable; }

    /** True for a snippet that nothing can refer to after it ran. */
    static boolean isOneShot(Snippet s) {
        if (s instanceof VarSnippet v && v.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND) return true;
        return !s.kind().isPersistent();
    }

    /** Removes a one-shot snippet (already dropped, if it was a temporary) from JShell's records. */
    void forget(Snippet s) {
        if (books == null || !isOneShot(s)) return;
        try {
            books.forget(s);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("gluelab: cannot forget snippet " + s.id() + ": " + e);
        }
    }

    /** Call after every cell. */
    void cellDone() {
        if (books == null || ++cells % POOL_CELLS != 0) return;
        try {
            books.dropJavacContexts();
        } catch (RuntimeException e) {
            System.err.println("gluelab: cannot rebuild javac's contexts: " + e);
        }
    }

    /** Snippets JShell still records (for tests and benchmarks); -1 when compaction is unavailable. */
    int recordedSnippets() {
        try {
            return books == null ? -1 : books.snippets.size();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Handles on the JShell fields involved, looked up once. */
    private static final class Books {
        final Set<?> snippets;
        final List<Object> keyIndexToSnippet;
        final Map<String, Set<Integer>> dependencies;
        final Map<?, ?> varKeys, classBytes, classFiles, outerWraps;
        final Object javacPool, platformIndex;
        final Map<?, ?> javacContexts, platformIndexEntries;
        final Field snippetKey, keyIndex, snippetOuter;
        final Method outerClassName, outerFullName;

        @SuppressWarnings("unchecked")
        Books(JShell shell) throws ReflectiveOperationException {
            Object maps = read(shell, "maps");
            snippets = (Set<?>) read(maps, "snippets");
            keyIndexToSnippet = (List<Object>) read(maps, "keyIndexToSnippet");
            dependencies = (Map<String, Set<Integer>>) read(maps, "dependencies");
            varKeys = (Map<?, ?>) read(read(shell, "keyMap"), "varMap");
            classBytes = (Map<?, ?>) read(read(shell, "classTracker"), "map");
            Object taskFactory = read(shell, "taskFactory");
            classFiles = (Map<?, ?>) read(read(taskFactory, "fileManager"), "classObjects");
            outerWraps = (Map<?, ?>) read(read(shell, "outerMap"), "classOuters");
            javacPool = read(taskFactory, "javacTaskPool");
            javacContexts = (Map<?, ?>) read(javacPool, "options2Contexts");
            // javac's index of the platform's packages, shared by all its contexts, keeps an entry for
            // every package name it was asked about, and snippets make it ask about each wrapper class.
            Method shared = Class.forName("com.sun.tools.javac.file.JRTIndex").getMethod("getSharedInstance");
            platformIndex = shared.invoke(null);
            platformIndexEntries = (Map<?, ?>) read(platformIndex, "entries");
            snippetKey = field(Snippet.class, "key");
            keyIndex = field(snippetKey.getType(), "index");
            snippetOuter = field(Snippet.class, "outer");
            outerClassName = method(snippetOuter.getType(), "className");
            outerFullName = method(snippetOuter.getType(), "classFullName");
        }

        void forget(Snippet s) throws ReflectiveOperationException {
            snippets.remove(s);
            int index = (int) keyIndex.get(snippetKey.get(s));
            if (index < keyIndexToSnippet.size() && keyIndexToSnippet.get(index) == s) keyIndexToSnippet.set(index, null);
            dependencies.values().forEach(keys -> keys.remove(index));
            dependencies.values().removeIf(Set::isEmpty);
            if (s instanceof VarSnippet v) varKeys.remove(v.name());
            Object outer = snippetOuter.get(s);
            if (outer != null) {
                String full = (String) outerFullName.invoke(outer);
                removeClass(classBytes.keySet(), full);
                removeClass(classFiles.keySet(), full);
                outerWraps.remove((String) outerClassName.invoke(outer));
            }
        }

        void dropJavacContexts() {
            synchronized (javacPool) {
                javacContexts.clear();
            }
            synchronized (platformIndex) {
                platformIndexEntries.clear();
            }
        }

        private static void removeClass(Collection<?> names, String full) {
            names.removeIf(n -> n.equals(full) || ((String) n).startsWith(full + "$"));
        }

        private static Object read(Object o, String name) throws ReflectiveOperationException {
            return field(o.getClass(), name).get(o);
        }

        private static Field field(Class<?> c, String name) throws NoSuchFieldException {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                try {
                    Field f = k.getDeclaredField(name);
                    f.setAccessible(true);
                    return f;
                } catch (NoSuchFieldException e) {
                    // look in the superclass
                }
            }
            throw new NoSuchFieldException(c.getName() + "." + name);
        }

        private static Method method(Class<?> c, String name) throws NoSuchMethodException {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                try {
                    Method m = k.getDeclaredMethod(name);
                    m.setAccessible(true);
                    return m;
                } catch (NoSuchMethodException e) {
                    // look in the superclass
                }
            }
            throw new NoSuchMethodException(c.getName() + "." + name + "()");
        }
    }
}
