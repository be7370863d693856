package gluelab.trace;

/** A trace that cannot be read: the message names the file and where in it the problem is. */
public final class TraceException extends IllegalArgumentException {
    public TraceException(String message, Throwable cause) { super(message, cause); }

    public TraceException(String message) { super(message); }
}
