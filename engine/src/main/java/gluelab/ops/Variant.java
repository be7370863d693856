package gluelab.ops;

import java.util.Arrays;
import java.util.Locale;

/**
 * How an op is executed. EAGER runs one pass per primitive and materialises every intermediate in
 * memory, as a framework's eager mode does; FUSED runs the whole op in one pass over its inputs.
 * Both run on gluelab's devices. REGION is the op written as a glue expression ({@code gluelab.expr})
 * and run as its generated fused region, on the ops that have one: beside the hand-written FUSED
 * kernel it shows where generated code is as fast. TORCH_EAGER and TORCH_COMPILE are the user's
 * PyTorch timing the same op (the torch bridge's rows); no device prepares them.
 */
public enum Variant {
    EAGER("eager"), FUSED("fused"), REGION("region"), TORCH_EAGER("torch-eager"), TORCH_COMPILE("torch-compile");

    private final String id;

    Variant(String id) { this.id = id; }

    /** The variants gluelab's devices run for every op. */
    public static final java.util.List<Variant> ON_DEVICES = java.util.List.of(EAGER, FUSED);

    /** Whether a gluelab device runs it (REGION too, for the ops written as expressions). */
    public boolean onDevices() { return ON_DEVICES.contains(this) || this == REGION; }

    @com.fasterxml.jackson.annotation.JsonValue public String id() { return id; }

    @com.fasterxml.jackson.annotation.JsonCreator public static Variant parse(String text) {
        for (Variant v : values()) if (v.id().equals(text.trim().toLowerCase(Locale.ROOT))) return v;
        throw new IllegalArgumentException("unknown variant '" + text + "'; known: " + Arrays.stream(values()).map(Variant::id).toList());
    }
}
