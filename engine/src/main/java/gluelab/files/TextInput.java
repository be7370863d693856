package gluelab.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * A text file given as input, read with bounds: only a regular file (a named pipe or a device such
 * as {@code /dev/urandom} would hang or fill memory), at most a stated size, and strict UTF-8
 * (the error says at which byte and line it stops being text). Every error is one line naming the file.
 */
public final class TextInput {
    /** The default bound: far above any log, CSV or record gluelab reads, far below the heap. */
    public static final long DEFAULT_LIMIT = 512L << 20;

    private TextInput() {}

    /** The file's text; {@code what} names it in errors ("dynamo log", "ncu CSV"). */
    public static String read(Path file, String what) { return read(file, what, DEFAULT_LIMIT); }

    public static String read(Path file, String what, long limitBytes) {
        byte[] bytes = readBytes(file, what, limitBytes);
        return decode(file, what, bytes);
    }

    /** The file's lines (any line ending). */
    public static List<String> lines(Path file, String what) { return read(file, what).lines().toList(); }

    /** Fails, naming the file, unless it is a regular file (not missing, a folder, a pipe or a device). */
    public static void requireRegular(Path file, String what) {
        if (!Files.exists(file)) throw new IllegalArgumentException(what + " " + file + ": no such file");
        if (Files.isDirectory(file)) throw new IllegalArgumentException(what + " " + file + " is a folder, not a file");
        if (!Files.isRegularFile(file))
            throw new IllegalArgumentException(what + " " + file + " is not a regular file (a named pipe or a device?); save it to a file first");
    }

    /** At most {@code limitBytes} of a regular file's bytes; a larger file is refused before it is read whole. */
    public static byte[] readBytes(Path file, String what, long limitBytes) {
        requireRegular(file, what);
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limitBytes + 1));
            if (bytes.length > limitBytes)
                throw new IllegalArgumentException(what + " " + file + " is over " + (limitBytes >> 20) + " MiB; is it the right file?");
            return bytes;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(what + " " + file + ": no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + " " + file + ": " + IoErrors.reason(e));
        }
    }

    private static String decode(Path file, String what, byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) r = decoder.flush(out);
        if (r.isError()) {
            int at = in.position(), line = 1;
            for (int i = 0; i < at; i++) if (bytes[i] == '\n') line++;
            throw new IllegalArgumentException(what + " " + file + ":" + line + ": not UTF-8 text at byte " + at + " (binary, or another encoding?)");
        }
        String text = out.flip().toString();
        for (int i = 0; i < Math.min(text.length(), 8192); i++) {
            if (text.charAt(i) == 0) throw new IllegalArgumentException(what + " " + file + ": not text (a NUL byte at byte " + i + "; a binary file?)");
        }
        return text;
    }
}
