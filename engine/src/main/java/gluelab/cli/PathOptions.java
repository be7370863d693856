package gluelab.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Checks of output paths given as options, made before any work so a long run does not end unable to write. */
final class PathOptions {
    private PathOptions() {}

    /** A folder to write into: missing is fine (it is made) where the nearest folder above it exists and can be written. */
    static void folder(Path folder, String option) {
        if (folder == null) return;
        if (Files.exists(folder) && !Files.isDirectory(folder)) {
            throw new IllegalArgumentException(option + " " + folder + " is a file, not a folder; name a folder");
        }
        Path p = folder.toAbsolutePath().normalize();
        while (p != null && !Files.exists(p)) p = p.getParent();
        if (p == null) return;
        if (!Files.isDirectory(p)) throw new IllegalArgumentException(option + " " + folder + ": " + p + " is a file, so no folder can be made under it");
        if (!Files.isWritable(p)) throw new IllegalArgumentException(option + " " + folder + ": folder " + p + " is not writable");
    }

    /** An output that would replace one of the command's inputs is refused: the input is lost before it is read whole. */
    static void notAnInput(Path out, String option, Path... inputs) {
        if (out == null) return;
        for (Path in : inputs) {
            if (in != null && same(out, in)) throw new IllegalArgumentException(option + " " + out + " is the input " + in + "; name another file");
        }
    }

    private static boolean same(Path a, Path b) {
        try {
            if (Files.exists(a) && Files.exists(b)) return Files.isSameFile(a, b);
        } catch (java.io.IOException e) {
            // compare the paths instead
        }
        return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }

    /** A file to write: its folder must exist, and the file itself must not be a folder. */
    static void fileInExistingFolder(Path file, String option) {
        if (file == null) return;
        if (Files.isDirectory(file)) throw new IllegalArgumentException(option + " " + file + " is a folder, not a file; name a file");
        Path folder = file.toAbsolutePath().normalize().getParent();
        if (folder != null && !Files.isDirectory(folder)) {
            throw new IllegalArgumentException(option + " " + file + ": folder " + folder + " does not exist; create it or name another file");
        }
        if (folder != null && !Files.isWritable(folder)) throw new IllegalArgumentException(option + " " + file + ": folder " + folder + " is not writable");
    }
}
