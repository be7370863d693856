package gluelab.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The files gluelab wrote into one folder and what each held ({@code .gluelab-written}: name and
 * SHA-256 per line), so that writing them again replaces only what is still as written: a file
 * edited by hand since (a PR text) is kept, and the new text goes beside it as {@code NAME.new.EXT}.
 */
public final class WrittenFiles {
    public static final String INDEX = ".gluelab-written";

    /** Where a text went: {@code file}, and whether it went beside a hand-edited file of the wanted name. */
    public record Written(Path file, Path kept) {
        public boolean beside() { return kept != null; }
    }

    private final Path dir;
    private final Map<String, String> hashes = new TreeMap<>();

    private WrittenFiles(Path dir) { this.dir = dir; }

    public static WrittenFiles in(Path dir) {
        WrittenFiles w = new WrittenFiles(dir);
        Path index = dir.resolve(INDEX);
        if (Files.isRegularFile(index)) {
            try {
                for (String line : Files.readAllLines(index)) {
                    int tab = line.lastIndexOf('\t');
                    if (tab > 0) w.hashes.put(line.substring(0, tab), line.substring(tab + 1));
                }
            } catch (IOException e) {
                // An unreadable index protects nothing: every existing file then counts as edited.
            }
        }
        return w;
    }

    /** Writes {@code text} as {@code name}, or as NAME.new.EXT beside a file of that name that is not as gluelab left it. */
    public Written write(String name, String text) {
        Path wanted = dir.resolve(name);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Path kept = null, target = wanted;
        if (Files.exists(wanted) && !asWritten(wanted, name)) {
            kept = wanted;
            int dot = name.lastIndexOf('.');
            String beside = dot > 0 ? name.substring(0, dot) + ".new" + name.substring(dot) : name + ".new";
            target = dir.resolve(beside);
        }
        AtomicFiles.write(target, bytes);
        hashes.put(target.getFileName().toString(), sha256(bytes));
        writeIndex();
        return new Written(target, kept);
    }

    /**
     * Removes what gluelab wrote here earlier that is not among {@code current} (a PR text of a fix
     * that has none any more), where the file is still as written; one edited by hand since is kept.
     * Returns the names removed.
     */
    public List<String> removeOthers(Set<String> current) {
        List<String> removed = new ArrayList<>();
        for (String name : List.copyOf(hashes.keySet())) {
            if (current.contains(name)) continue;
            Path file = dir.resolve(name);
            if (Files.exists(file) && !asWritten(file, name)) continue;
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot remove " + file + ", which no longer belongs to the write-up: " + e.getMessage(), e);
            }
            hashes.remove(name);
            removed.add(name);
        }
        if (!removed.isEmpty()) writeIndex();
        return removed;
    }

    private void writeIndex() {
        StringBuilder b = new StringBuilder();
        hashes.forEach((n, h) -> b.append(n).append('\t').append(h).append('\n'));
        AtomicFiles.write(dir.resolve(INDEX), b.toString());
    }

    private boolean asWritten(Path file, String name) {
        String h = hashes.get(name);
        try {
            return h != null && h.equals(sha256(Files.readAllBytes(file)));
        } catch (IOException e) {
            return false;
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
