package gluelab.kernel.eval;

import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JShell's file manager for the class path, with its index of the class path's packages kept
 * between javac tasks.
 *
 * <p>javac sets {@code --multi-release} on the file manager at the start of every task, always to
 * the same value, and the JDK's file manager drops its index of every jar's packages whenever a
 * file-manager option is set. JShell runs five javac tasks for a cell as small as {@code 1}, and
 * each of them asks for the package {@code REPL} (JShell purges it after every task), so the index
 * of the kernel's 70 jars was rebuilt five times a cell: about a tenth of a trivial cell's time.
 * Here an option set again to the value it already has is not passed on, so the index stays; any
 * other option (a new {@code -classpath} from {@code %classpath} or {@code %maven}) goes through
 * and drops it as before.
 */
final class IndexKeepingFileManager extends ForwardingJavaFileManager<StandardJavaFileManager> implements StandardJavaFileManager {
    private final Map<String, List<String>> lastValues = new HashMap<>();

    IndexKeepingFileManager(StandardJavaFileManager platform) { super(platform); }

    @Override public synchronized boolean handleOption(String current, Iterator<String> remaining) {
        if (isSupportedOption(current) != 1) return super.handleOption(current, remaining);
        // An option with one argument: read it, and pass both on only when the value changes.
        if (!remaining.hasNext()) return super.handleOption(current, remaining);
        String value = remaining.next();
        if (List.of(value).equals(lastValues.get(current))) return true;
        boolean handled = super.handleOption(current, List.of(value).iterator());
        if (handled) lastValues.put(current, List.of(value));
        return handled;
    }

    @Override public boolean isSameFile(FileObject a, FileObject b) { return fileManager.isSameFile(a, b); }

    @Override public Iterable<? extends JavaFileObject> getJavaFileObjectsFromFiles(Iterable<? extends File> files) {
        return fileManager.getJavaFileObjectsFromFiles(files);
    }

    @Override public Iterable<? extends JavaFileObject> getJavaFileObjectsFromPaths(Collection<? extends Path> paths) {
        return fileManager.getJavaFileObjectsFromPaths(paths);
    }

    @Override public Iterable<? extends JavaFileObject> getJavaFileObjects(File... files) { return fileManager.getJavaFileObjects(files); }

    @Override public Iterable<? extends JavaFileObject> getJavaFileObjects(Path... paths) { return fileManager.getJavaFileObjects(paths); }

    @Override public Iterable<? extends JavaFileObject> getJavaFileObjectsFromStrings(Iterable<String> names) {
        return fileManager.getJavaFileObjectsFromStrings(names);
    }

    @Override public Iterable<? extends JavaFileObject> getJavaFileObjects(String... names) { return fileManager.getJavaFileObjects(names); }

    @Override public synchronized void setLocation(Location location, Iterable<? extends File> files) throws IOException {
        fileManager.setLocation(location, files);
    }

    @Override public synchronized void setLocationFromPaths(Location location, Collection<? extends Path> paths) throws IOException {
        fileManager.setLocationFromPaths(location, paths);
    }

    @Override public synchronized void setLocationForModule(Location location, String moduleName, Collection<? extends Path> paths) throws IOException {
        fileManager.setLocationForModule(location, moduleName, paths);
    }

    @Override public Iterable<? extends File> getLocation(Location location) { return fileManager.getLocation(location); }

    @Override public Iterable<? extends Path> getLocationAsPaths(Location location) { return fileManager.getLocationAsPaths(location); }

    @Override public Path asPath(FileObject file) { return fileManager.asPath(file); }

    @Override public void setPathFactory(PathFactory f) { fileManager.setPathFactory(f); }
}
