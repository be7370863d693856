package gluelab.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Checks of output paths given as options, made before any work so a long run does not end unable to write. */
final class PathOptions {
    private PathOptions() {}

    /** A folder to write into: missing is fine (it is made), an existing file is not. */
    static void folder(Path folder, String option) {
        if (folder != null && Files.exists(folder) && !Files.isDirectory(folder)) {
            throw new IllegalArgumentException(option + " " + folder + " is a file, not a folder; name a folder");
        }
    }

    /** A file to write: its folder must exist, and the file itself must not be a folder. */
    static void fileInExistingFolder(Path file, String option) {
        if (file == null) return;
        if (Files.isDirectory(file)) throw new IllegalArgumentException(option + " " + file + " is a folder, not a file; name a file");
        Path folder = file.toAbsolutePath().normalize().getParent();
        if (folder != null && !Files.isDirectory(folder)) {
            throw new IllegalArgumentException(option + " " + file + ": folder " + folder + " does not exist; create it or name another file");
        }
    }
}
