package gluelab.backend.cuda.compile;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * One translation unit and the headers it may include ({@code #include "name"}), by name: what a
 * compiler is given (NVRTC as named headers, nvcc as files in an include folder). The digest covers
 * the unit's name and text and every header, so a changed header is a different kernel.
 */
public record SourceUnit(String name, String text, Map<String, String> headers) {
    public SourceUnit {
        headers = java.util.Collections.unmodifiableMap(new TreeMap<>(headers));
    }

    /** A unit that includes nothing of gluelab's. */
    public static SourceUnit of(String name, String text) { return new SourceUnit(name, text, Map.of()); }

    /** The same unit with other text (tests break a kernel on purpose). */
    public SourceUnit withText(String newText) { return new SourceUnit(name, newText, headers); }

    /** SHA-256 of the name, the text and each header (name and text), hex. */
    public String digest() {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            update(d, name);
            update(d, text);
            for (var h : headers.entrySet()) {
                update(d, h.getKey());
                update(d, h.getValue());
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void update(MessageDigest d, String s) {
        d.update(s.getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
    }
}
