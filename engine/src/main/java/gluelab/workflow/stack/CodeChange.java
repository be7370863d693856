package gluelab.workflow.stack;

/**
 * One place in the source that a change edits: the file, the function (or method, {@code Class.method},
 * or class) in it, its {@code def} line when known (0 when not), and what the change does there. A PR
 * text names each one in its Code section as {@code FILE:FUNCTION} (rule {@code code} of {@code pr check}).
 */
public record CodeChange(String file, String function, int line, String what) {
    public CodeChange {
        if (file == null || file.isBlank() || file.contains(" ")) throw new IllegalArgumentException("a code change needs its file (a path without spaces), got " + file);
        if (function == null || !function.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*"))
            throw new IllegalArgumentException("code change in " + file + ": function must be a name such as apply_rotary_emb or Attention.rope, got " + function);
        if (line < 0) throw new IllegalArgumentException("code change " + file + ":" + function + ": line must be >= 0, got " + line);
        if (what == null || what.isBlank() || what.contains("\n")) throw new IllegalArgumentException("code change " + file + ":" + function + ": say in one line what changes there");
    }

    public CodeChange(String file, String function, String what) { this(file, function, 0, what); }

    /** {@code llama3.py:apply_rotary_emb}. */
    public String where() { return file + ":" + function; }

    /** "`llama3.py:apply_rotary_emb` (def at line 48): replaced by `rewrites.py:apply_rotary_emb_real`". */
    public String describe() { return "`" + where() + "`" + (line > 0 ? " (def at line " + line + ")" : "") + ": " + what; }
}
