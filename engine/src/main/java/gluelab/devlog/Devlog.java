package gluelab.devlog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One file per effort: timestamped entries appended and forced to disk right after each
 * measurement, decision, dead end or feedback note. Each entry is one write under an exclusive
 * file lock (between processes) and a per-file monitor (between threads), so concurrent writers
 * never interleave or lose entries.
 */
public final class Devlog {
    public enum Kind {
        MEASUREMENT, DECISION, DEAD_END, FEEDBACK, NOTE;

        /** How the devlog writes it: "dead_end". */
        public String id() { return name().toLowerCase(java.util.Locale.ROOT); }

        /** The kind written {@code id} (any case); an unknown one is an error listing the kinds. */
        public static Kind parse(String id) {
            for (Kind k : values()) if (k.name().equalsIgnoreCase(id.trim())) return k;
            throw new IllegalArgumentException("unknown devlog kind '" + id + "'; known: " + java.util.Arrays.stream(values()).map(Kind::id).toList());
        }
    }

    public record Entry(Instant at, Kind kind, String text) {}

    private static final ConcurrentHashMap<Path, Object> MONITORS = new ConcurrentHashMap<>();
    private static final Pattern HEADER = Pattern.compile("^## (\\S+) \\[([a-z_]+)\\]$");

    private final Path file;

    public Devlog(Path file) { this.file = file.toAbsolutePath().normalize(); }

    public Path file() { return file; }

    public Entry append(Kind kind, String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("devlog entry is empty");
        Entry e = new Entry(Instant.now(), kind, text.strip());
        // "## " at a line start would read as a new entry header; indent it.
        String body = e.text().replaceAll("(?m)^## ", "  ## ");
        byte[] bytes = ("## " + e.at() + " [" + kind.id() + "]\n" + body + "\n\n").getBytes(StandardCharsets.UTF_8);
        synchronized (MONITORS.computeIfAbsent(file, k -> new Object())) {
            try {
                Files.createDirectories(file.getParent());
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                     FileLock ignored = ch.lock()) {
                    ByteBuffer buf = ByteBuffer.wrap(bytes);
                    while (buf.hasRemaining()) ch.write(buf);
                    ch.force(false);
                }
            } catch (IOException ex) {
                throw new UncheckedIOException("cannot append to devlog " + file + ": " + ex.getMessage(), ex);
            }
        }
        return e;
    }

    public Entry measurement(String text) { return append(Kind.MEASUREMENT, text); }

    public Entry decision(String text) { return append(Kind.DECISION, text); }

    public Entry deadEnd(String text) { return append(Kind.DEAD_END, text); }

    public Entry feedback(String text) { return append(Kind.FEEDBACK, text); }

    public Entry note(String text) { return append(Kind.NOTE, text); }

    private Instant header(Matcher m, int line) {
        try {
            return Instant.parse(m.group(1));
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(file + ":" + line + ": entry header has time '" + m.group(1)
                    + "', expected an ISO-8601 instant such as 2026-11-30T09:00:00Z");
        }
    }

    private Kind kind(String name, int line) {
        for (Kind k : Kind.values()) if (k.name().equalsIgnoreCase(name)) return k;
        throw new IllegalArgumentException(file + ":" + line + ": entry header has kind [" + name + "], expected one of "
                + java.util.Arrays.stream(Kind.values()).map(Kind::id).toList());
    }

    /** All entries, in file order; a malformed entry header fails with the file and line. */
    public List<Entry> read() {
        List<Entry> out = new ArrayList<>();
        if (!Files.exists(file)) return out;
        List<String> lines = gluelab.files.TextInput.lines(file, "devlog");
        Instant at = null;
        Kind kind = null;
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher m = HEADER.matcher(line);
            if (m.matches()) {
                if (at != null) out.add(new Entry(at, kind, text.toString().strip()));
                at = header(m, i + 1);
                kind = kind(m.group(2), i + 1);
                text.setLength(0);
            } else if (at != null) {
                text.append(line).append('\n');
            }
        }
        if (at != null) out.add(new Entry(at, kind, text.toString().strip()));
        return out;
    }
}
