package gluelab.files;

import gluelab.compilelog.CompileLogParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Inputs that hung, filled memory or said "Input length = 1" (issue 23's probe). */
class TextInputTest {
    @Test
    void aDeviceIsRefusedBeforeItIsRead() {
        assumeTrue(Files.exists(Path.of("/dev/urandom")));
        String m = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> assertThrows(IllegalArgumentException.class, () -> CompileLogParser.read(Path.of("/dev/urandom")))).getMessage();
        assertTrue(m.contains("/dev/urandom") && m.contains("not a regular file"), m);
    }

    @Test
    void aNamedPipeIsRefusedInsteadOfWaitedOn(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("log");
        assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo is not available");
        String m = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> assertThrows(IllegalArgumentException.class, () -> TextInput.read(fifo, "dynamo log"))).getMessage();
        assertTrue(m.contains("dynamo log " + fifo) && m.contains("named pipe"), m);
    }

    @Test
    void binaryInputSaysAtWhichByteAndLineItStopsBeingText(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bin.log");
        byte[] bytes = "ok line\nsecond \u00e9\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] withBad = java.util.Arrays.copyOf(bytes, bytes.length + 2);
        withBad[bytes.length] = (byte) 0xff;
        withBad[bytes.length + 1] = 'x';
        Files.write(f, withBad);
        String m = assertThrows(IllegalArgumentException.class, () -> TextInput.read(f, "dynamo log")).getMessage();
        assertTrue(m.contains(f + ":3: not UTF-8 text at byte " + bytes.length), m);
        String c = assertThrows(IllegalArgumentException.class, () -> CompileLogParser.read(f)).getMessage();
        assertTrue(c.contains("not UTF-8 text at byte " + bytes.length) && c.contains("expected a dynamo log"), c);
        Files.write(f, new byte[]{'a', 0, 'b'});
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TextInput.read(f, "log")).getMessage().contains("NUL byte at byte 1"));
    }

    @Test
    void aFileOverTheBoundIsRefusedWithoutReadingItWhole(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("big.csv"), "x".repeat(3 << 20));
        String m = assertThrows(IllegalArgumentException.class, () -> TextInput.read(f, "ncu CSV", 1 << 20)).getMessage();
        assertTrue(m.contains("ncu CSV " + f + " is over 1 MiB"), m);
        assertEquals(3 << 20, TextInput.read(f, "ncu CSV").length());
    }
}
