package gluelab.files;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Where gluelab keeps caches and finds user model specs; each can be moved by an environment variable. */
public final class Locations {
    private Locations() {}

    /** $GLUELAB_CACHE, else $XDG_CACHE_HOME/gluelab, else ~/.cache/gluelab. */
    public static Path cacheDir() {
        String env = System.getenv("GLUELAB_CACHE");
        if (env != null && !env.isBlank()) return Path.of(env);
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "gluelab");
        return Path.of(System.getProperty("user.home"), ".cache", "gluelab");
    }

    public static Path calibrationCache() { return cacheDir().resolve("calibration"); }

    /** ./specs, ~/.config/gluelab/specs, and the folders in $GLUELAB_SPECS (path-separator list). */
    public static List<Path> specFolders() { return specFolders(System.getenv("GLUELAB_SPECS")); }

    /** The spec folders with {@code env} as $GLUELAB_SPECS; an entry that is a file is refused (its specs would be missed without a word). */
    public static List<Path> specFolders(String env) {
        List<Path> out = new ArrayList<>();
        out.add(Path.of("specs"));
        out.add(Path.of(System.getProperty("user.home"), ".config", "gluelab", "specs"));
        if (env != null) {
            for (String p : env.split(java.io.File.pathSeparator)) {
                if (p.isBlank()) continue;
                Path folder = Path.of(p);
                if (java.nio.file.Files.isRegularFile(folder)) {
                    throw new IllegalArgumentException("GLUELAB_SPECS names " + folder + ", a file; it lists folders of spec JSON files");
                }
                out.add(folder);
            }
        }
        return out;
    }
}
