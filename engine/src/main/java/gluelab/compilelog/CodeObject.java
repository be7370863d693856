package gluelab.compilelog;

import java.util.List;

/**
 * One code object dynamo compiled (a frame id in the log): its function and where it is defined
 * ("" and 0 where the log does not say), the graphs it holds, its recompilations, and whether
 * it hit the recompile limit.
 */
public record CodeObject(int frame, String function, String file, int line, int graphs, List<Recompile> recompiles,
                         boolean limitHit) {
    public CodeObject {
        recompiles = List.copyOf(recompiles);
    }

    public String name() {
        String f = function.isEmpty() ? "frame " + frame : function;
        return file.isEmpty() ? f : f + " (" + baseName(file) + ":" + line + ")";
    }

    static String baseName(String path) { return path.substring(path.lastIndexOf('/') + 1); }
}
