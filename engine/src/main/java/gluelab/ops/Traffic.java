package gluelab.ops;

/** The bytes an op must move at least: every input read once, every output written once. */
public record Traffic(long bytesRead, long bytesWritten) {
    public long total() { return bytesRead + bytesWritten; }
}
