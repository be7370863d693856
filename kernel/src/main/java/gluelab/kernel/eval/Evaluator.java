package gluelab.kernel.eval;

import jdk.jshell.*;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Evaluates Java cells with an in-process JShell: a cell may hold several snippets (statements,
 * declarations, redefinitions); the value of its last expression is returned as the real object.
 */
public final class Evaluator implements AutoCloseable {
    /** Imports every cell starts with, so {@code var lab = Gluelab.open();} works at once. */
    public static final List<String> STARTUP = List.of(
            "import java.util.*;", "import java.util.stream.*;", "import java.nio.file.*;",
            "import gluelab.lab.*;", "import gluelab.ops.*;", "import gluelab.model.*;", "import gluelab.timing.*;",
            "import gluelab.rank.*;", "import gluelab.chart.*;", "import gluelab.report.*;", "import gluelab.trace.*;",
            "import gluelab.record.*;", "import gluelab.devlog.*;", "import gluelab.workflow.experiment.*;", "import gluelab.calibrate.*;", "import gluelab.bench.*;",
            "import tech.tablesaw.api.*;", "import gluelab.kernel.Session;", "import static gluelab.kernel.Session.display;");

    private final JShell shell;
    private final CapturingExecutionControl.Provider provider;
    private final ShellCompactor compactor;
    /** Null when every cell goes to JShell (tests compare the two paths). */
    private final CertainCells certain;

    public Evaluator() { this(true); }

    /** With {@code certainCells} false every cell is compiled by JShell, even one whose value is certain without it. */
    Evaluator(boolean certainCells) {
        provider = new CapturingExecutionControl.Provider(Evaluator.class.getClassLoader());
        shell = JShell.builder().executionEngine(provider, java.util.Map.of()).compilerOptions("-Xlint:none")
                .fileManager(IndexKeepingFileManager::new).build();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isBlank()) shell.addToClasspath(entry);
        }
        for (String s : STARTUP) shell.eval(s);
        ApiDocs.install();
        compactor = new ShellCompactor(shell);
        certain = certainCells ? new CertainCells(shell, provider.control) : null;
    }

    /** Adds a jar or folder for the following cells. */
    public void addToClasspath(String path) {
        if (!new File(path).exists()) throw new IllegalArgumentException("classpath entry " + path + " does not exist");
        shell.addToClasspath(path);
    }

    /** Runs a cell; returns its last expression's value, or null when the last snippet has none. */
    public Object eval(String cell) {
        stopRequested = false;
        try {
            return evalSnippets(cell);
        } finally {
            provider.control.loader.forgetOneShots();
            compactor.cellDone();
        }
    }

    private Object evalSnippets(String cell) {
        CertainCells.Certain known = certain == null ? null : certain.value(cell);
        if (known != null) {
            if (stopRequested) throw new InterruptedCellException();
            certainCells++;
            return known.value();
        }
        Object result = null;
        String remaining = cell;
        int consumed = 0;
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        while (!remaining.isBlank()) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(remaining);
            String source = info.source();
            if (info.completeness() == SourceCodeAnalysis.Completeness.EMPTY) break;
            if (source == null || !info.completeness().isComplete()) {
                int line = lineOf(cell, consumed + leading(remaining));
                throw new CompileError("incomplete code at cell line " + line + ": " + firstLine(remaining.strip()), line, 1);
            }
            int start = consumed + leading(remaining);
            // JShell's stop ends the running snippet as if it had finished: the rest of the cell must not run.
            if (stopRequested) throw new InterruptedCellException();
            result = run(source, cell, start);
            if (stopRequested) throw new InterruptedCellException();
            consumed += remaining.length() - info.remaining().length();
            remaining = info.remaining();
        }
        return result;
    }

    private Object run(String source, String cell, int startOffset) {
        List<SnippetEvent> events = shell.eval(source);
        Object value = null;
        for (SnippetEvent e : events) {
            if (e.causeSnippet() != null) continue;
            Snippet s = e.snippet();
            // A bare expression's temporary ($1, $2, ...) is not referenced by notebooks: it is dropped
            // and, like every one-shot snippet, forgotten.
            try {
                value = outcome(e, s, source, cell, startOffset);
            } finally {
                if (s instanceof VarSnippet v && v.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND && shell.status(v).isActive()) {
                    shell.drop(v);
                }
                compactor.forget(s);
            }
        }
        return value;
    }

    /** The value of one snippet's event, or the error it raised. */
    private Object outcome(SnippetEvent e, Snippet s, String source, String cell, int startOffset) {
        if (e.status() == Snippet.Status.REJECTED) {
            Diag d = shell.diagnostics(s).findFirst().orElse(null);
            if (d == null) throw new CompileError("cannot compile: " + firstLine(source), lineOf(cell, startOffset), 1);
            int at = startOffset + (int) Math.max(0, d.getStartPosition());
            int line = lineOf(cell, at), col = columnOf(cell, at);
            String text = cell.lines().skip(line - 1).findFirst().orElse("");
            throw new CompileError("compile error at cell line " + line + ", column " + col + ": " + d.getMessage(null)
                    + "\n    " + text + "\n    " + " ".repeat(Math.max(0, col - 1)) + "^", line, col);
        }
        if (e.exception() != null) {
            Throwable real = provider.control.takeThrown();
            if (e.exception() instanceof EvalException && real != null) throw new UserCodeError(real, lineOf(cell, startOffset));
            if (real == null && e.exception().getMessage() != null && e.exception().getMessage().contains("Stop")) {
                throw new InterruptedCellException();
            }
            throw new UserCodeError(e.exception(), lineOf(cell, startOffset));
        }
        // A declaration (`String device = "auto";`) shows nothing, as an assignment in IPython: a
        // notebook's parameters cell would otherwise echo every value. A bare expression's temporary shows.
        if (s instanceof VarSnippet v && v.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND && e.value() != null) {
            shell.varValue(v);
            return provider.control.takeValue();
        }
        if (s instanceof ExpressionSnippet x && e.value() != null) {
            VarSnippet v = shell.variables().filter(vs -> vs.name().equals(x.name())).reduce((a, b) -> b).orElse(null);
            if (v != null) {
                shell.varValue(v);
                return provider.control.takeValue();
            }
        }
        return null;
    }

    /**
     * Snippets JShell still records: the session's declarations and imports. One-shot cells
     * (statements, expressions, errors) are forgotten once run; -1 if this JDK does not allow it.
     */
    public int recordedSnippets() { return compactor.recordedSnippets(); }

    /** Cells answered without javac so far (see {@link CertainCells}). */
    int certainCells() { return certainCells; }

    private int certainCells;

    /** JShell's key and temporary-name counters as "nextKeyIndex/varNumber" (for tests). */
    String countersState() {
        try {
            return new CertainCells.Counters(shell).state();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops the running snippet (a loop stops at its next back-edge); the cell's later snippets do not run. */
    public void stop() {
        stopRequested = true;
        shell.stop();
    }

    /** Set by {@link #stop()}, cleared when a cell starts. */
    private volatile boolean stopRequested;

    /**
     * Completions at the cursor, the receiver's own API first: {@code Object}'s methods ({@code wait},
     * {@code hashCode}, ...) come last, and are left out while nothing of the name is typed yet.
     */
    public List<String> complete(String code, int cursor, int[] anchor) {
        List<SourceCodeAnalysis.Suggestion> s = shell.sourceCodeAnalysis().completionSuggestions(code, cursor, anchor);
        List<String> options = s.stream().map(SourceCodeAnalysis.Suggestion::continuation).distinct().collect(Collectors.toList());
        return Completions.objectMethodsLast(options, anchor[0] == cursor);
    }

    /**
     * Signature(s) and Javadoc summary of what is at the cursor (Shift-Tab), or null: the cursor may be
     * anywhere in a name, before or after its "(" (a method's overloads are all listed); a session
     * variable also shows its value.
     */
    public String inspect(String code, int cursor) {
        int at = Math.max(0, Math.min(cursor, code.length()));
        int end = at;
        while (end < code.length() && Character.isJavaIdentifierPart(code.charAt(end))) end++;
        List<SourceCodeAnalysis.Documentation> docs = shell.sourceCodeAnalysis().documentation(code, end, true);
        if (docs.isEmpty() && end > 0 && Character.isJavaIdentifierPart(code.charAt(end - 1))) {
            // A method name without its "(": ask as if the call were open.
            docs = shell.sourceCodeAnalysis().documentation(code.substring(0, end) + "(", end + 1, true);
        }
        if (docs.isEmpty()) return null;
        StringBuilder sb = new StringBuilder();
        for (SourceCodeAnalysis.Documentation d : docs) {
            sb.append(d.signature());
            String value = variableValue(d.signature());
            if (value != null) sb.append(" = ").append(value);
            sb.append('\n');
            String summary = Javadoc.summary(d.javadoc());
            if (!summary.isEmpty()) sb.append("    ").append(summary).append('\n');
            for (String p : Javadoc.params(d.javadoc())) sb.append("      ").append(p).append('\n');
        }
        return sb.toString().strip();
    }

    /** For JShell's "name:type" signature of a session variable, its current value as text. */
    private String variableValue(String signature) {
        int colon = signature.indexOf(':');
        if (colon <= 0 || !signature.substring(0, colon).matches("[A-Za-z_$][\\w$]*")) return null;
        String name = signature.substring(0, colon);
        return shell.variables().filter(v -> v.name().equals(name) && shell.status(v).isActive()).reduce((a, b) -> b)
                .map(v -> {
                    String text = shell.varValue(v);
                    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
                }).orElse(null);
    }

    /**
     * Pays for the first completion request (JShell builds its analysis state: 0.7 s at load 12, against 0.3 s for the
     * next ones) before the user's first Tab; JupyterLab ignores a completion provider that takes longer than 1 s.
     */
    public void warmUpCompletion() {
        shell.sourceCodeAnalysis().completionSuggestions("Gluelab.", "Gluelab.".length(), new int[1]);
    }

    /** "complete", "incomplete" or "invalid" for the whole cell. */
    public String isComplete(String code) {
        String remaining = code;
        while (!remaining.isBlank()) {
            var info = shell.sourceCodeAnalysis().analyzeCompletion(remaining);
            switch (info.completeness()) {
                case EMPTY -> { return "complete"; }
                case DEFINITELY_INCOMPLETE, CONSIDERED_INCOMPLETE -> { return "incomplete"; }
                case UNKNOWN -> { return "invalid"; }
                default -> remaining = info.remaining();
            }
        }
        return "complete";
    }

    private static int leading(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        return i;
    }

    static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < Math.min(offset, text.length()); i++) if (text.charAt(i) == '\n') line++;
        return line;
    }

    static int columnOf(String text, int offset) {
        int lastNl = text.lastIndexOf('\n', Math.max(0, Math.min(offset, text.length()) - 1));
        return offset - lastNl;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl) + " ...";
    }

    @Override public void close() { shell.close(); }

    /** The cell was interrupted. */
    public static final class InterruptedCellException extends RuntimeException {
        public InterruptedCellException() { super("interrupted: the cell was stopped"); }
    }
}
