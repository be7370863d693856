package gluelab.compilelog;

/** An error the log records: the recompile limit hit, its hard failure under fullgraph, or a CUDA-graph overwrite. */
public record Failure(Kind kind, String compileId, String message, String location, int logLine) {
    public enum Kind { RECOMPILE_LIMIT, HARD_FAILURE, CUDAGRAPH_OVERWRITE }
}
