package gluelab.torch;

import java.util.List;

/**
 * The torch.compile graphs of a bench compiled before any timing, in {@code workers} Python processes
 * at once, into the Inductor cache (so the timed requests load them): how many, the wall seconds, the
 * sum of per-graph compile seconds (what compiling one by one would cost), and the ones that failed there.
 */
public record Precompile(int graphs, int workers, double wallSeconds, double compileSeconds, List<String> failed, String cacheDir) {
    public static final Precompile NONE = new Precompile(0, 0, 0, 0, List.of(), "");

    public Precompile {
        failed = List.copyOf(failed);
    }

    public String describe() {
        if (graphs == 0) return "torch.compile: nothing compiled beforehand";
        return String.format("torch.compile: %d graphs compiled first in %d processes: %.1f s wall, %.1f s of compiling (%.1fx)%s; Inductor cache %s",
                graphs, workers, wallSeconds, compileSeconds, compileSeconds / Math.max(1e-9, wallSeconds),
                failed.isEmpty() ? "" : "; failed there (compiled again when timed): " + String.join(", ", failed), cacheDir);
    }
}
