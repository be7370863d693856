package gluelab.backend.cuda;

import gluelab.ops.OpId;

import java.util.List;
import java.util.Optional;

/** Where a catalogue op's fused CUDA kernels are written: the family's file under kernels/src/main/cuda and its entry points, for the texts that name them. */
public final class FusedSources {
    public static final String FOLDER = "kernels/src/main/cuda/";

    /** A family's file (relative to the checkout) and the entry points it launches. */
    public record Source(String file, List<String> kernels) {}

    private FusedSources() {}

    public static Optional<Source> of(String op) {
        return FusedKernels.family(OpId.of(op)).map(f -> new Source(FOLDER + f.source(), List.copyOf(f.kernels())));
    }
}
