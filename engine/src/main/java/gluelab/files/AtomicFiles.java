package gluelab.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.nio.charset.StandardCharsets;

/** Writes that either land whole or not at all: a temp file in the same folder, forced, then renamed. */
public final class AtomicFiles {
    private AtomicFiles() {}

    public static void write(Path target, byte[] bytes) {
        try {
            Path dir = target.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
            try {
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                    var buf = java.nio.ByteBuffer.wrap(bytes);
                    while (buf.hasRemaining()) ch.write(buf);
                    ch.force(true);
                }
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    public static void write(Path target, String text) { write(target, text.getBytes(StandardCharsets.UTF_8)); }
}
