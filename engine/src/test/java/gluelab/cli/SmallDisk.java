package gluelab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A real small filesystem for tests of a full disk and a read-only folder: a tmpfs mounted on a
 * folder (tests run as root, and mode bits do not stop root; a full or read-only filesystem does).
 * Mounting needs CAP_SYS_ADMIN: where it is not allowed (a container without it) the test is
 * skipped by an assumption that says so.
 */
final class SmallDisk implements AutoCloseable {
    final Path root;

    private SmallDisk(Path root) { this.root = root; }

    /** A tmpfs of {@code kib} KiB on {@code at}, filled to the last byte when {@code full}; read-only when {@code readOnly}. */
    static SmallDisk mount(Path at, int kib, boolean full, boolean readOnly) throws Exception {
        Files.createDirectories(at);
        int code = run("mount", "-t", "tmpfs", "-o", "size=" + kib + "k", "tmpfs", at.toString());
        assumeTrue(code == 0, "cannot mount a tmpfs (needs root with CAP_SYS_ADMIN, which this container lacks): mount exited " + code);
        SmallDisk d = new SmallDisk(at);
        if (full) d.fill();
        if (readOnly && run("mount", "-o", "remount,ro", at.toString()) != 0) {
            d.close();
            throw new IllegalStateException("cannot remount " + at + " read-only");
        }
        return d;
    }

    /** Writes a filler file until the filesystem says it is full. */
    private void fill() throws IOException {
        byte[] block = new byte[4096];
        try (var out = Files.newOutputStream(root.resolve("filler"))) {
            while (true) out.write(block);
        } catch (IOException e) {
            if (e.getMessage() == null || !e.getMessage().contains("No space left")) throw e;
        }
    }

    /** Every file under the disk but the filler: what a failed write left behind. */
    java.util.List<String> leftovers() throws IOException {
        try (var s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).filter(n -> !n.equals("filler")).sorted().toList();
        }
    }

    private static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    @Override public void close() throws Exception {
        run("umount", root.toString());
    }
}
