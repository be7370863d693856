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

    /** The family's entry points that serve {@code op}: those named after it, else those named after no other op of the family, else all. */
    public static Optional<Source> of(String op) {
        return FusedKernels.family(OpId.of(op)).map(f -> {
            List<String> named = f.kernels().stream().filter(k -> k.contains(op)).toList();
            List<String> others = f.ops().stream().map(OpId::name).filter(o -> !o.equals(op)).toList();
            List<String> unclaimed = f.kernels().stream().filter(k -> others.stream().noneMatch(k::contains)).toList();
            return new Source(FOLDER + f.source(), List.copyOf(!named.isEmpty() ? named : !unclaimed.isEmpty() ? unclaimed : f.kernels()));
        });
    }
}
