package gluelab.compilelog;

/** A compile-budget problem the log shows: what it is, the evidence (with the log line) and the fix. */
public record CompileSymptom(Kind kind, String title, String evidence, String fix, int logLine) {
    public enum Kind {
        PER_LAYER_ATTRIBUTE, VALUE_GUARD, ID_GUARD, DYNAMIC_SHAPE, RECOMPILE_LIMIT, HARD_FAILURE, GRAPH_BREAK, CUDAGRAPH_OVERWRITE;

        public String id() { return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'); }
    }
}
