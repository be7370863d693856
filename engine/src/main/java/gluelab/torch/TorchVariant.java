package gluelab.torch;

import java.util.Arrays;

/** The torch rows a bench can add: eager, torch.compile, and torch.compile replayed as a CUDA graph. */
public enum TorchVariant {
    EAGER("torch-eager"), COMPILE("torch-compile"), COMPILE_GRAPH("torch-compile-graph");

    private final String id;

    TorchVariant(String id) { this.id = id; }

    public String id() { return id; }

    public static TorchVariant parse(String text) {
        for (TorchVariant v : values()) if (v.id.equals(text.trim())) return v;
        throw new IllegalArgumentException("unknown torch variant '" + text + "'; known: " + Arrays.stream(values()).map(TorchVariant::id).toList());
    }
}
