package gluelab.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * An exclusive lock on a file, held by one process (and one holder in this JVM) at a time: two
 * processes writing one new experiment or collecting one sweep at once each lost the other's work.
 * The operating system drops the lock when its process dies, so a killed holder blocks no one.
 */
public final class FileLock implements AutoCloseable {
    private final FileChannel channel;
    private final java.nio.channels.FileLock lock;

    private FileLock(FileChannel channel, java.nio.channels.FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock, or null when another process (or another holder here) has it. */
    public static FileLock tryTake(Path file) {
        FileChannel ch;
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open lock file " + file + ": " + IoErrors.reason(e), e);
        }
        try {
            java.nio.channels.FileLock l = ch.tryLock();
            if (l != null) return new FileLock(ch, l);
        } catch (OverlappingFileLockException held) {
            // held in this JVM
        } catch (IOException e) {
            close(ch);
            throw new UncheckedIOException("cannot lock " + file + ": " + IoErrors.reason(e), e);
        }
        close(ch);
        return null;
    }

    /** The lock, waiting for it up to {@code wait}; {@code holder} says in the error what holds it. */
    public static FileLock take(Path file, Duration wait, String holder) {
        long deadline = System.nanoTime() + wait.toNanos();
        long pause = 5;
        while (true) {
            FileLock l = tryTake(file);
            if (l != null) return l;
            if (System.nanoTime() > deadline)
                throw new IllegalStateException(holder + " still holds " + file + " after " + wait.toSeconds() + " s; wait for it to finish, then try again");
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + file);
            }
            pause = Math.min(100, pause * 2);
        }
    }

    /**
     * Replaces the lock file's text (what holds it, for whoever is refused), through the locked channel: on Linux, closing
     * any other channel this JVM opened on the file would release the lock.
     */
    public void describe(String text) {
        try {
            channel.truncate(0);
            channel.write(java.nio.ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write lock file: " + IoErrors.reason(e), e);
        }
    }

    @Override public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        close(channel);
    }

    private static void close(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
