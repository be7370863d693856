package gluelab.compilelog;

import java.util.List;

/**
 * One recompilation of a code object: the compile id it produced and the guards that failed
 * against each earlier graph, newest first (the first is the reason this call missed the newest graph).
 */
public record Recompile(String compileId, List<GuardFailure> failures, int logLine) {
    public Recompile {
        failures = List.copyOf(failures);
    }

    /** The guard that failed against the newest graph, or null when dynamo listed none. */
    public GuardFailure reason() { return failures.isEmpty() ? null : failures.getFirst(); }
}
