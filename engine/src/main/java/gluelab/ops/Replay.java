package gluelab.ops;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;

/** How a measured launch was issued: directly from the host, or replayed from a captured CUDA graph. */
public enum Replay {
    DIRECT, GRAPH;

    @JsonValue public String id() { return name().toLowerCase(Locale.ROOT); }

    /** The word a table's launch column shows: "normal" or "graph" (the id stays "direct" in stored files). */
    public String launch() { return this == DIRECT ? "normal" : "graph"; }

    @JsonCreator public static Replay parse(String text) {
        for (Replay r : values()) if (r.id().equals(text.trim().toLowerCase(Locale.ROOT))) return r;
        throw new IllegalArgumentException("unknown replay '" + text + "'; known: " + Arrays.stream(values()).map(Replay::id).toList());
    }
}
