package gluelab.record;

import gluelab.files.Json;
import gluelab.files.AtomicFiles;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.*;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Run directories under an output folder (the layout and loading; {@link RecordPublisher} writes them). A run is built in {@code .<id>.partial/} and renamed
 * to {@code <id>/} only when complete, so a half-written run is never read as valid; a failed run
 * keeps its partial folder with a FAILED marker saying why.
 */
public final class RecordStore {
    public static final String RECORD_FILE = "record.json";
    public static final String FAILED_FILE = "FAILED";

    private final Path root;

    public RecordStore(Path root) { this.root = root; }

    public Path root() { return root; }

    /** Where run {@code id} is built until it is published. */
    public Path partialDir(String id) { return root.resolve("." + id + ".partial"); }

    /** A new, empty partial directory for run {@code id} (an old attempt's is cleared); {@link RecordPublisher} calls this. */
    Path begin(String id) {
        Path partial = partialDir(id);
        try {
            RecordPublisher.deleteTree(partial);
            Files.createDirectories(partial);
            return partial;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create run folder " + partial + ": " + e.getMessage(), e);
        }
    }

    /** Writes the record into the partial directory (before rendering, so a rendering failure loses no data). */
    static void save(Path partial, ExperimentRecord record) {
        AtomicFiles.write(partial.resolve(RECORD_FILE), Json.write(record));
    }

    /** Publishes a partial directory, whose record is saved, under its final name. */
    Path commit(Path partial, ExperimentRecord record) {
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
    static void fail(Path partial, Throwable error) { fail(partial, error.getClass().getName() + ": " + error.getMessage()); }

    /** Marks a partial run as failed with {@code why} (a sweep marks a shard whose worker died this way). */
    public static void fail(Path partial, String why) {
        try {
            Files.createDirectories(partial);
            AtomicFiles.write(partial.resolve(FAILED_FILE), why + "\n");
        } catch (IOException | RuntimeException ignored) {
            // The original error is what the caller reports.
        }
    }

    /**
     * Loads one run directory (or a record.json file); errors name the file and the field. A run
     * that did not finish ({@code .partial}, maybe FAILED) is refused as a folder, saying whether
     * its record.json is complete; naming that record.json file itself loads it.
     */
    public static ExperimentRecord load(Path dirOrFile) {
        boolean asFolder = Files.isDirectory(dirOrFile);
        Path file = asFolder ? dirOrFile.resolve(RECORD_FILE) : dirOrFile;
        Path dir = file.toAbsolutePath().getParent();
        boolean partial = dir.getFileName() != null && dir.getFileName().toString().endsWith(".partial");
        boolean failed = Files.exists(dir.resolve(FAILED_FILE));
        if (asFolder && (partial || failed)) {
            String state = failed ? "failed (" + readQuietly(dir.resolve(FAILED_FILE)) + ")" : "is incomplete (still being written, or its process died)";
            if (!Files.isRegularFile(file)) throw new IllegalArgumentException("run " + dir + " " + state + " and has no record.json");
            try {
                read(file);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("run " + dir + " " + state + " and has no valid record: " + e.getMessage(), e);
            }
            throw new IllegalArgumentException("run " + dir + " " + state + "; its record " + file
                    + " is complete: load that file to use the measurements it holds");
        }
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no experiment record at " + file);
        return read(file);
    }

    /**
     * The rows of a run, from what people have at hand: a run folder or its record.json, an output
     * folder holding exactly one run (the demo's {@code --out}), or the rows {@code bench --json}
     * printed (a JSON list). Errors name the file.
     */
    public static List<Row> loadRows(Path path) {
        if (Files.isDirectory(path) && !Files.exists(path.resolve(RECORD_FILE))) {
            List<Path> runs = new ArrayList<>();
            try (Stream<Path> s = Files.list(path)) {
                s.filter(d -> Files.isRegularFile(d.resolve(RECORD_FILE)) && !d.getFileName().toString().startsWith(".")).sorted().forEach(runs::add);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot list " + path + ": " + e.getMessage(), e);
            }
            if (runs.size() != 1) {
                throw new IllegalArgumentException(runs.isEmpty() ? "no experiment record in " + path + " or its run folders"
                        : path + " holds " + runs.size() + " runs; name one: " + runs.stream().map(r -> r.getFileName().toString()).toList());
            }
            return load(runs.getFirst()).rows();
        }
        if (Files.isRegularFile(path) && startsWithList(path)) {
            try {
                List<Row> rows = List.of(Json.MAPPER.readValue(path.toFile(), Row[].class));
                checkSamples("rows file " + path, rows);
                return rows;
            } catch (JsonProcessingException e) {
                String field = e instanceof com.fasterxml.jackson.databind.JsonMappingException m ? Json.fieldPath(m) : "";
                throw new IllegalArgumentException("rows file " + path + (field.isEmpty() ? "" : ": field \"" + field + "\"") + ": " + Json.problem(e), e);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read rows file " + path + ": " + e.getMessage(), e);
            }
        }
        return load(path).rows();
    }

    private static boolean startsWithList(Path file) {
        try (var in = Files.newBufferedReader(file)) {
            int c;
            while ((c = in.read()) != -1 && Character.isWhitespace(c)) { }
            return c == '[';
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static ExperimentRecord read(Path file) {
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new IllegalArgumentException("corrupt experiment record " + file
                    + (loc != null ? " at line " + loc.getLineNr() + ", column " + loc.getColumnNr() : "") + ": " + Json.problem(e), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read experiment record " + file + ": " + e.getMessage(), e);
        }
        if (tree == null || !tree.isObject() || tree.path("formatVersion").asInt(-1) != ExperimentRecord.FORMAT)
            throw new IllegalArgumentException("experiment record " + file + " is not a gluelab record of format " + ExperimentRecord.FORMAT);
        require(file, tree, "id", JsonNode::isTextual, "a string");
        require(file, tree, "spec", JsonNode::isObject, "a model spec object");
        require(file, tree, "environment", JsonNode::isObject, "an object");
        require(file, tree, "rows", JsonNode::isArray, "a list of rows");
        for (int i = 0; i < tree.get("rows").size(); i++) {
            JsonNode row = tree.get("rows").get(i);
            String at = "rows[" + i + "]";
            if (!row.isObject()) throw new IllegalArgumentException("experiment record " + file + ": \"" + at + "\" must be an object, got " + row);
            require(file, row, at, "key", JsonNode::isObject, "an object (op, pass, variant, replay, tokens, dtype)");
            for (String f : List.of("op", "pass", "variant", "replay", "dtype")) require(file, row.get("key"), at + ".key", f, JsonNode::isTextual, "a string");
            require(file, row, at, "measurement", JsonNode::isObject, "an object");
            JsonNode m = row.get("measurement");
            require(file, m, at + ".measurement", "summary", JsonNode::isObject, "an object");
            require(file, m, at + ".measurement", "samples", n -> n.isArray() && !n.isEmpty(), "a non-empty list of samples");
        }
        try {
            ExperimentRecord r = Json.MAPPER.treeToValue(tree, ExperimentRecord.class);
            checkSamples("experiment record " + file, r.rows());
            return r;
        } catch (JsonProcessingException e) {
            String field = e instanceof com.fasterxml.jackson.databind.JsonMappingException m ? Json.fieldPath(m) : "";
            throw new IllegalArgumentException("experiment record " + file + (field.isEmpty() ? "" : ": field \"" + field + "\"") + ": " + Json.problem(e), e);
        }
    }

    /** No sample of one launch lasts a day; 1e308 s or an overflow is damage, not a time. */
    static final double MOST_SECONDS = 86_400;
    /** A stored median this far from its samples' median (either way) was not computed from them. */
    static final double MEDIAN_AGREEMENT = 1.5;

    /**
     * Every sample a positive, finite time under a day, and each stored median that of its samples:
     * a record with medians of 0 printed "NaN%" and passed compare; one whose summaries disagreed 10x
     * with its samples was trusted.
     */
    static void checkSamples(String source, List<Row> rows) {
        for (int i = 0; i < rows.size(); i++) {
            var m = rows.get(i).measurement();
            double[] samples = m.samples();
            String at = source + ": field \"rows[" + i + "].measurement";
            for (int j = 0; j < samples.length; j++) {
                double v = samples[j];
                if (!(v > 0 && v < MOST_SECONDS))
                    throw new IllegalArgumentException(at + ".samples[" + j + "]\" is " + v + " s; a sample is a positive time under a day (" + rows.get(i).key() + ")");
            }
            if (samples.length == 0) throw new IllegalArgumentException(at + ".samples\" is empty (" + rows.get(i).key() + ")");
            double stored = m.summary().median(), actual = gluelab.timing.Summary.of(samples).median();
            if (!(stored > 0) || stored / actual > MEDIAN_AGREEMENT || actual / stored > MEDIAN_AGREEMENT)
                throw new IllegalArgumentException(at + ".summary.median\" is " + stored + " s, but the median of its " + samples.length + " samples is "
                        + actual + " s (" + rows.get(i).key() + "); the summary was not computed from these samples");
        }
    }

    private static void require(Path file, JsonNode node, String field, java.util.function.Predicate<JsonNode> ok, String what) {
        require(file, node, "", field, ok, what);
    }

    private static void require(Path file, JsonNode node, String at, String field, java.util.function.Predicate<JsonNode> ok, String what) {
        JsonNode v = node.get(field);
        String name = at.isEmpty() ? field : at + "." + field;
        if (v == null || v.isNull()) throw new IllegalArgumentException("experiment record " + file + ": field \"" + name + "\" is " + (v == null ? "missing" : "null"));
        if (!ok.test(v)) throw new IllegalArgumentException("experiment record " + file + ": field \"" + name + "\" must be " + what + ", got " + abbreviate(v.toString()));
    }

    private static String abbreviate(String s) { return s.length() <= 60 ? s : s.substring(0, 57) + "..."; }

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
