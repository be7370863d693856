package gluelab.kernel.eval;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.URL;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where JShell looks for Javadoc: the JDK's src.zip, as JShell itself does, plus gluelab's own
 * sources, which the build puts into the kernel jar under {@code gluelab-sources/}. JShell has no
 * option for more source roots, so its (test) override field is set; without the opens the
 * kernelspec gives, Shift-Tab still shows signatures and the JDK's Javadoc.
 */
final class ApiDocs {
    static final String ROOT = "gluelab-sources";
    private static boolean done;

    private ApiDocs() {}

    static synchronized void install() {
        if (done) return;
        done = true;
        try {
            List<Path> roots = new ArrayList<>(jdkRoots());
            Path ours = ourSources();
            if (ours != null) roots.add(ours);
            Field f = Class.forName("jdk.jshell.SourceCodeAnalysisImpl").getDeclaredField("availableSourcesOverride");
            f.setAccessible(true);
            f.set(null, List.copyOf(roots));
        } catch (ReflectiveOperationException | RuntimeException | IOException e) {
            // JShell keeps finding the JDK's sources by itself
        }
    }

    private static List<Path> jdkRoots() throws IOException {
        Path home = Path.of(System.getProperty("java.home"));
        Path zip = home.resolve("lib/src.zip");
        if (!Files.isReadable(zip)) zip = home.getParent().resolve("src.zip");
        if (!Files.isReadable(zip)) return List.of();
        FileSystem fs = FileSystems.newFileSystem(zip, Map.of());
        Path root = fs.getRootDirectories().iterator().next();
        if (Files.exists(root.resolve("java/lang/Object.java"))) return List.of(zip);
        List<Path> modules = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
            for (Path p : ds) if (Files.isDirectory(p)) modules.add(p);
        }
        return modules;
    }

    /** gluelab-sources/ in the kernel jar or the build's classes folder, or null. */
    static Path ourSources() throws IOException {
        URL marker = ApiDocs.class.getResource("/" + ROOT + "/gluelab/lab/Gluelab.java");
        if (marker == null) return null;
        URI uri = URI.create(marker.toString());
        if (uri.getScheme().equals("jar")) {
            String s = uri.toString();
            URI jar = URI.create(s.substring(0, s.indexOf("!/")));
            FileSystem fs;
            try {
                fs = FileSystems.newFileSystem(jar, Map.of());
            } catch (java.nio.file.FileSystemAlreadyExistsException e) {
                fs = FileSystems.getFileSystem(jar);
            }
            return fs.getPath("/" + ROOT);
        }
        Path file = Path.of(uri);
        while (file != null && !file.getFileName().toString().equals(ROOT)) file = file.getParent();
        return file;
    }
}
