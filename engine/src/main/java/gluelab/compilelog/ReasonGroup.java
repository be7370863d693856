package gluelab.compilelog;

import java.util.List;

/**
 * The recompilations of one code object whose reason (the guard that failed against the newest
 * graph) has the same shape, e.g. {@code self.layer_idx == N}: how many, the distinct values seen in
 * place of N, and the user's source line.
 */
public record ReasonGroup(String pattern, int count, List<String> values, String code, int firstLogLine) {
    public ReasonGroup {
        values = List.copyOf(values);
    }
}
