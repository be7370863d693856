package gluelab.torch;

/**
 * The torch side could not do what was asked: torch missing or too old, no CUDA in torch, the
 * user's function raised (the message holds its Python exception), CUDA ran out of memory, or the
 * Python process died. The bridge survives all but the last; the next call then starts a fresh one.
 */
public final class TorchException extends RuntimeException {
    public enum Kind { MISSING, TOO_OLD, NO_CUDA, FAILED, OOM, CRASHED }

    private final Kind kind;
    private final String pythonTraceback;

    public TorchException(Kind kind, String message, String pythonTraceback) {
        super(message);
        this.kind = kind;
        this.pythonTraceback = pythonTraceback == null ? "" : pythonTraceback;
    }

    public Kind kind() { return kind; }

    /** The Python traceback of a failure in the user's code ("" when there is none). */
    public String pythonTraceback() { return pythonTraceback; }
}
