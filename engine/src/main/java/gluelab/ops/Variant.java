package gluelab.ops;

import java.util.Arrays;
import java.util.Locale;

/**
 * How an op is executed. EAGER runs one pass per primitive and materialises every intermediate in
 * memory, as a framework's eager mode does; FUSED runs the whole op in one pass over its inputs.
 */
public enum Variant {
    EAGER, FUSED;

    @com.fasterxml.jackson.annotation.JsonValue public String id() { return name().toLowerCase(Locale.ROOT); }

    @com.fasterxml.jackson.annotation.JsonCreator public static Variant parse(String text) {
        for (Variant v : values()) if (v.id().equals(text.trim().toLowerCase(Locale.ROOT))) return v;
        throw new IllegalArgumentException("unknown variant '" + text + "'; known: " + Arrays.stream(values()).map(Variant::id).toList());
    }
}
