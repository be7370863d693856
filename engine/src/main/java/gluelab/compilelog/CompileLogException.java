package gluelab.compilelog;

/** A compile log that cannot be read: the message names the file and the line. */
public final class CompileLogException extends IllegalArgumentException {
    public CompileLogException(String message) { super(message); }

    public CompileLogException(String message, Throwable cause) { super(message, cause); }
}
