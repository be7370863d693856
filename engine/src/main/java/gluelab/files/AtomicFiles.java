package gluelab.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.nio.charset.StandardCharsets;

/**
 * Writes that either land whole or not at all: a temp file in the same folder, forced, then renamed.
 * The temp file is created as any new file is (mode 0666 less the user's umask), not with
 * {@code createTempFile}'s owner-only 0600, so what lands has the permissions the user expects.
 */
public final class AtomicFiles {
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private AtomicFiles() {}

    public static void write(Path target, byte[] bytes) {
        try {
            Path dir = target.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = dir.resolve("." + target.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
            try {
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)) {
                    var buf = java.nio.ByteBuffer.wrap(bytes);
                    while (buf.hasRemaining()) ch.write(buf);
                    ch.force(true);
                }
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + IoErrors.reason(e), e);
        }
    }

    public static void write(Path target, String text) { write(target, text.getBytes(StandardCharsets.UTF_8)); }
}
