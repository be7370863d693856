package gluelab.backend.cuda.compile;

/** A CUDA C compile that failed: the message names the source and carries the compiler's log with line numbers. */
public final class CompileException extends RuntimeException {
    private final String log;

    public CompileException(String sourceName, String compiler, String log) {
        super("CUDA compile of " + sourceName + " failed (" + compiler + "):\n" + log.strip());
        this.log = log;
    }

    public String log() { return log; }
}
