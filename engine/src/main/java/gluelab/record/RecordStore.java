package gluelab.record;

import com.fasterxml.jackson.core.JsonProcessingException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.*;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Run directories under an output folder. A run is built in {@code .<id>.partial/} and renamed
 * to {@code <id>/} only when complete, so a half-written run is never read as valid; a failed run
 * keeps its partial folder with a FAILED marker saying why.
 */
public final class RecordStore {
    public static final String RECORD_FILE = "record.json";
    public static final String FAILED_FILE = "FAILED";

    private final Path root;

    public RecordStore(Path root) { this.root = root; }

    public Path root() { return root; }

    /** A new, empty partial directory for run {@code id}. */
    public Path begin(String id) {
        Path partial = root.resolve("." + id + ".partial");
        try {
            Files.createDirectories(partial);
            return partial;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create run folder " + partial + ": " + e.getMessage(), e);
        }
    }

    /** Writes the record into the partial directory (before rendering, so a rendering failure loses no data). */
    public static void save(Path partial, ExperimentRecord record) {
        AtomicFiles.write(partial.resolve(RECORD_FILE), Json.write(record));
    }

    /** Publishes a partial directory, whose record is saved, under its final name. */
    public Path commit(Path partial, ExperimentRecord record) {
        if (!Files.isRegularFile(partial.resolve(RECORD_FILE))) save(partial, record);
        Path target = root.resolve(record.id());
        try {
            if (Files.exists(target)) throw new IOException("run folder " + target + " already exists");
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot publish run " + record.id() + ": " + e.getMessage(), e);
        }
    }

    /** Marks a partial run as failed; the marker names the error. */
    public static void fail(Path partial, Throwable error) {
        try {
            AtomicFiles.write(partial.resolve(FAILED_FILE), error.getClass().getName() + ": " + error.getMessage() + "\n");
        } catch (RuntimeException ignored) {
            // The original error is what the caller reports.
        }
    }

    /** Loads one run directory (or a record.json file); errors name the file and the problem. */
    public static ExperimentRecord load(Path dirOrFile) {
        Path file = Files.isDirectory(dirOrFile) ? dirOrFile.resolve(RECORD_FILE) : dirOrFile;
        Path dir = file.toAbsolutePath().getParent();
        if (Files.exists(dir.resolve(FAILED_FILE))) {
            throw new IllegalArgumentException("run " + dir + " failed and has no valid record: " + readQuietly(dir.resolve(FAILED_FILE)));
        }
        if (dir.getFileName() != null && dir.getFileName().toString().endsWith(".partial")) {
            throw new IllegalArgumentException("run " + dir + " is incomplete (still being written, or its process died)");
        }
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no experiment record at " + file);
        ExperimentRecord r;
        try {
            r = Json.MAPPER.readValue(file.toFile(), ExperimentRecord.class);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new IllegalArgumentException("corrupt experiment record " + file
                    + (loc != null ? " at line " + loc.getLineNr() + ", column " + loc.getColumnNr() : "") + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read experiment record " + file + ": " + e.getMessage(), e);
        }
        if (r == null || r.formatVersion() != ExperimentRecord.FORMAT || r.id() == null || r.environment() == null) {
            throw new IllegalArgumentException("experiment record " + file + " is not a gluelab record of format " + ExperimentRecord.FORMAT);
        }
        for (Row row : r.rows()) {
            if (row.measurement() == null || row.measurement().samples().length == 0) {
                throw new IllegalArgumentException("experiment record " + file + ": row " + row.key() + " has no samples");
            }
        }
        return r;
    }

    /** Every loadable record under the root; unloadable ones are reported, not fatal. */
    public List<ExperimentRecord> loadAll(List<String> problems) {
        List<ExperimentRecord> out = new ArrayList<>();
        if (!Files.isDirectory(root)) return out;
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : dirs.filter(Files::isDirectory).sorted().toList()) {
                if (!Files.exists(d.resolve(RECORD_FILE)) && !d.getFileName().toString().endsWith(".partial")) continue;
                try {
                    out.add(load(d));
                } catch (IllegalArgumentException e) {
                    problems.add(e.getMessage());
                }
            }
        } catch (IOException e) {
            problems.add("cannot list " + root + ": " + e.getMessage());
        }
        return out;
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException e) {
            return "(unreadable marker)";
        }
    }
}
