package gluelab.kernel.eval;

/** A snippet that does not compile: the message has the cell line and column and the offending source line. */
public final class CompileError extends RuntimeException {
    private final int line, column;

    public CompileError(String message, int line, int column) {
        super(message);
        this.line = line;
        this.column = column;
    }

    public int line() { return line; }

    public int column() { return column; }
}
