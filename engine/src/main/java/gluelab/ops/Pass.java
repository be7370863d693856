package gluelab.ops;

import java.util.Locale;

/** Forward or backward: floors and timings are counted for each separately. */
public enum Pass {
    FORWARD, BACKWARD;

    @com.fasterxml.jackson.annotation.JsonValue public String id() { return this == FORWARD ? "fwd" : "bwd"; }

    @com.fasterxml.jackson.annotation.JsonCreator public static Pass parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "fwd", "forward" -> FORWARD;
            case "bwd", "backward" -> BACKWARD;
            default -> throw new IllegalArgumentException("unknown pass '" + text + "'; known: fwd, bwd");
        };
    }
}
