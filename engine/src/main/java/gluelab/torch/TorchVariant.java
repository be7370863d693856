package gluelab.torch;

import gluelab.ops.MeasureKey;
import gluelab.ops.OpId;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.tensor.DType;

import java.util.Arrays;

/** The torch rows a bench can add: eager, torch.compile, and torch.compile replayed as a CUDA graph. */
public enum TorchVariant {
    EAGER("torch-eager", Variant.TORCH_EAGER, Replay.DIRECT), COMPILE("torch-compile", Variant.TORCH_COMPILE, Replay.DIRECT),
    COMPILE_GRAPH("torch-compile-graph", Variant.TORCH_COMPILE, Replay.GRAPH);

    private final String id;
    private final Variant variant;
    private final Replay replay;

    TorchVariant(String id, Variant variant, Replay replay) {
        this.id = id;
        this.variant = variant;
        this.replay = replay;
    }

    /** The name the harness and the --torch-variants option use. */
    public String id() { return id; }

    /** The row key this torch row gets: its variant and replay. */
    public MeasureKey key(OpId op, Pass pass, long tokens, DType dtype) { return new MeasureKey(op, pass, variant, replay, tokens, dtype); }

    public static TorchVariant parse(String text) {
        for (TorchVariant v : values()) if (v.id.equals(text.trim())) return v;
        throw new IllegalArgumentException("unknown torch variant '" + text + "'; known: " + Arrays.stream(values()).map(TorchVariant::id).toList());
    }
}
