package gluelab.device;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The autotuner's picks on disk: per tuning key, {@code <hash>.pick} holds the picked config's id
 * and {@code <hash>.json} the tuning's record (written by the tuner). Writes are atomic (temp file
 * and rename), so a crashed tuning leaves no half pick behind.
 */
public final class ConfigPicks {
    /** What a pick depends on: the op, pass, dtype, shape (dims, tokens included) and the code (arch, source hash, compiler). */
    public record Key(String op, String pass, String dtype, String shape, String code) {
        /**
         * Dims and params in name order: a shape's maps keep the order they were built in, and
         * Map.of's order changes from one JVM to the next, so an unsorted key missed the pick of a
         * shape with two params (q-norm: eps, theta) in about every other process.
         */
        public static Key of(OpInstance in, String code) {
            return new Key(in.op().name(), in.pass().id(), in.shape().dtype().id(),
                    new java.util.TreeMap<>(in.shape().dims()).toString() + new java.util.TreeMap<>(in.shape().params()), code);
        }

        /** A file name for this key: the SHA-256 of its fields. */
        public String hash() {
            try {
                MessageDigest d = MessageDigest.getInstance("SHA-256");
                for (String part : new String[]{op, pass, dtype, shape, code}) {
                    d.update(part.getBytes(StandardCharsets.UTF_8));
                    d.update((byte) 0);
                }
                return HexFormat.of().formatHex(d.digest()).substring(0, 24);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final Path dir;
    private final Map<String, Optional<String>> memory = new ConcurrentHashMap<>();

    public ConfigPicks(Path dir) { this.dir = dir; }

    public Path dir() { return dir; }

    public Optional<String> pick(Key key) {
        return memory.computeIfAbsent(key.hash(), h -> {
            Path f = dir.resolve(h + ".pick");
            try {
                return Files.isRegularFile(f) ? Optional.of(Files.readString(f).strip()) : Optional.empty();
            } catch (IOException e) {
                return Optional.empty();
            }
        });
    }

    /** The tuning record stored with the pick, as the tuner wrote it. */
    public Optional<String> record(Key key) {
        Path f = dir.resolve(key.hash() + ".json");
        try {
            return Files.isRegularFile(f) ? Optional.of(Files.readString(f)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Keeps the pick for this process, then saves it; a cache that cannot be written (read-only, full)
     * is said once, on stderr, instead of the picks being lost without a word. Returns whether it was saved.
     */
    public boolean store(Key key, String configId, String recordJson) {
        memory.put(key.hash(), Optional.of(configId));
        try {
            write(dir.resolve(key.hash() + ".json"), recordJson);
            write(dir.resolve(key.hash() + ".pick"), configId + "\n");
            return true;
        } catch (UncheckedIOException e) {
            if (notSaved == null) notSaved = e.getMessage();
            if (!warned) {
                warned = true;
                System.err.println("gluelab: warning: tuned picks are not saved (" + e.getMessage() + "); this run uses them, a later run tunes again"
                        + " (set GLUELAB_CACHE to a writable folder)");
            }
            return false;
        }
    }

    private volatile boolean warned;
    private volatile String notSaved;

    /** Why the first pick that could not be saved was not ("cannot write PATH: No space left on device"); empty when every pick was saved. */
    public java.util.Optional<String> notSaved() { return java.util.Optional.ofNullable(notSaved); }

    private static void write(Path target, String text) {
        try {
            Files.createDirectories(target.getParent());
            Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
            try {
                Files.writeString(tmp, text);
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + gluelab.files.IoErrors.reason(e), e);
        }
    }
}
