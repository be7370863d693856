package gluelab.kernel.stream;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * A cell's {@code System.in}. When the execute request allows stdin, each line comes from the front
 * end (an input_request); when it does not (gluelab run, nbclient, a front end without a prompt),
 * reading is an error at once instead of a wait that never ends. Outside a cell it is at its end.
 */
public final class CellInput extends InputStream {
    public static final String NOT_ALLOWED = "this cell reads System.in, but the front end does not allow input (allow_stdin is false,"
            + " as in gluelab run and nbclient): give the value as a variable or a notebook parameter instead";

    private volatile Supplier<String> lines;
    private volatile boolean inCell;
    private byte[] line = new byte[0];
    private int at;

    /** Thrown where a cell reads stdin that the front end does not offer. */
    public static final class NotAllowed extends IllegalStateException {
        NotAllowed() { super(NOT_ALLOWED); }
    }

    /** Starts a cell: {@code lines} asks the front end for a line; null when stdin is not allowed. */
    public synchronized void start(Supplier<String> lines) {
        this.lines = lines;
        inCell = true;
        line = new byte[0];
        at = 0;
    }

    public synchronized void finish() {
        inCell = false;
        lines = null;
    }

    @Override public synchronized int read() {
        if (at >= line.length && !fill()) return -1;
        return line[at++] & 0xff;
    }

    @Override public synchronized int read(byte[] b, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) return 0;
        if (at >= line.length && !fill()) return -1;
        int n = Math.min(len, line.length - at);
        System.arraycopy(line, at, b, off, n);
        at += n;
        return n;
    }

    @Override public synchronized int available() { return line.length - at; }

    private boolean fill() {
        if (!inCell) return false;
        Supplier<String> source = lines;
        if (source == null) throw new NotAllowed();
        line = (source.get() + "\n").getBytes(StandardCharsets.UTF_8);
        at = 0;
        return true;
    }
}
