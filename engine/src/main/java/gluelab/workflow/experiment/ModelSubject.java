package gluelab.workflow.experiment;

import java.util.List;

/**
 * The plan's subject when it is the analyst's own model rather than gluelab's op catalogue: the
 * Python file and the function that builds the nn.Module ({@code build(T)} or {@code build()}), its
 * inputs in the torch bridge's syntax ({@code x:T,D:bf16}, symbols from the plan's model spec), the
 * container of its repeated blocks (empty: found) and the functions compiled on their own as regions
 * ({@code model.Attention.rope}: {@code model} is the file's module).
 */
public record ModelSubject(String file, String function, String inputs, String blocks, List<String> regions) {
    public ModelSubject {
        if (file == null || file.isBlank()) throw new IllegalArgumentException("plan: subject.file is empty");
        if (function == null || function.isBlank()) throw new IllegalArgumentException("plan: subject.function is empty");
        if (inputs == null || inputs.isBlank()) throw new IllegalArgumentException("plan: subject.inputs is empty");
        blocks = blocks == null ? "" : blocks.strip();
        regions = List.copyOf(regions == null ? List.of() : regions);
        for (String r : regions) {
            if (!r.matches("model(\\.[A-Za-z_][A-Za-z0-9_]*)+"))
                throw new IllegalArgumentException("region '" + r + "': expected model.NAME[.NAME...], a function or method of the model file (e.g. model.Attention.rope)");
        }
    }

    /** {@code file.py:function}, as the command line gives it. */
    public String entry() { return file + ":" + function; }
}
