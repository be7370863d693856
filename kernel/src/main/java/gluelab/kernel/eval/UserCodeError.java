package gluelab.kernel.eval;

/**
 * An exception thrown by user code. The cause is the real Throwable; its stack trace is trimmed
 * to put the user's frames (the snippet wrappers) first and drop the evaluator's own frames.
 */
public final class UserCodeError extends RuntimeException {
    private final int line;

    public UserCodeError(Throwable cause, int snippetLine) {
        super(cause.getClass().getName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + " (cell line " + snippetLine + ")", cause, false, true);
        StackTraceElement[] frames = cause.getStackTrace();
        int keep = frames.length;
        for (int i = 0; i < frames.length; i++) {
            if (frames[i].getClassName().startsWith("jdk.internal.reflect") || frames[i].getClassName().startsWith("java.lang.reflect.Method")
                    || frames[i].getClassName().startsWith("jdk.jshell.")) {
                keep = i;
                break;
            }
        }
        setStackTrace(java.util.Arrays.copyOf(frames, keep));
        line = snippetLine;
    }

    /** The cell line of the snippet that threw. */
    public int line() { return line; }
}
