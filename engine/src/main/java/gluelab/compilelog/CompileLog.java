package gluelab.compilelog;

import java.util.List;

/**
 * What a dynamo log says about compilation: the code objects compiled with their graphs and
 * recompilations, graph breaks, and failures. {@code limit} is the recompile limit the log names,
 * or dynamo's default (8) where it names none.
 */
public record CompileLog(String source, int limit, boolean limitFromLog, List<CodeObject> codeObjects, List<GraphBreak> graphBreaks,
                         List<Failure> failures, int lines) {
    public static final int DEFAULT_LIMIT = 8;

    public CompileLog {
        codeObjects = List.copyOf(codeObjects);
        graphBreaks = List.copyOf(graphBreaks);
        failures = List.copyOf(failures);
    }

    public int graphs() { return codeObjects.stream().mapToInt(CodeObject::graphs).sum(); }

    public int recompiles() { return codeObjects.stream().mapToInt(c -> c.recompiles().size()).sum(); }

    public boolean has(Failure.Kind kind) { return failures.stream().anyMatch(f -> f.kind() == kind); }
}
