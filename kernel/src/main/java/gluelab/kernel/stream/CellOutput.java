package gluelab.kernel.stream;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A cell's stdout or stderr, coalesced and bounded as ipykernel does it: writes are buffered and
 * sent as one stream message per {@link #FLUSH_INTERVAL_MS} (or when {@link #CHUNK_BYTES} are
 * waiting), not one message per println, and past {@code limitBytes} a cell's output is counted
 * instead of sent, with one line at the end saying how much was left out. A cell that prints
 * 100 MB then costs the kernel a few hundred messages and the front end at most the limit, and its
 * execute_reply is not queued behind a million stream messages.
 */
public final class CellOutput extends OutputStream {
    public static final long FLUSH_INTERVAL_MS = 100;
    static final int CHUNK_BYTES = 1 << 20;

    private final long limitBytes;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private volatile Consumer<String> sink;
    private long written, dropped;

    public CellOutput(long limitBytes) { this.limitBytes = limitBytes; }

    /** Starts a cell: its output goes to {@code sink} (one stream message per call). */
    public synchronized void start(Consumer<String> sink) {
        this.sink = sink;
        written = 0;
        dropped = 0;
        pending.reset();
    }

    /** Ends a cell: what is pending is sent, then the note on what was left out; later writes are dropped. */
    public synchronized void finish() {
        send(true);
        if (dropped > 0 && sink != null) {
            sink.accept("\n[gluelab: " + mib(dropped) + " more of this cell's output not shown: a cell shows at most " + mib(limitBytes)
                    + " (GLUELAB_CELL_OUTPUT_MIB); write large output to a file]\n");
        }
        sink = null;
    }

    @Override public void write(int b) { write(new byte[]{(byte) b}, 0, 1); }

    @Override public synchronized void write(byte[] b, int off, int len) {
        if (sink == null) return;
        long room = Math.max(0, limitBytes - written);
        int keep = (int) Math.min(room, len);
        pending.write(b, off, keep);
        written += keep;
        dropped += len - keep;
        if (pending.size() >= CHUNK_BYTES) send(false);
    }

    /** PrintStream flushes on every println: nothing is sent here; {@link #drain} sends on the interval. */
    @Override public void flush() {}

    /** Sends what is pending (the flusher's tick, and before a display or result so the order holds). */
    public synchronized void drain() { send(false); }

    /** Sends what is pending; a character cut at the end waits for its last bytes, unless this is the cell's end. */
    private void send(boolean last) {
        if (pending.size() == 0 || sink == null) return;
        byte[] bytes = pending.toByteArray();
        int cut = last ? bytes.length : utf8Boundary(bytes);
        pending.reset();
        pending.write(bytes, cut, bytes.length - cut);
        if (cut > 0) sink.accept(new String(bytes, 0, cut, StandardCharsets.UTF_8));
    }

    /** The length of {@code b} without a UTF-8 sequence cut off at its end (it waits for its last bytes). */
    static int utf8Boundary(byte[] b) {
        int n = b.length;
        for (int back = 1; back <= Math.min(3, n); back++) {
            int c = b[n - back] & 0xff;
            if ((c & 0xc0) == 0x80) continue; // continuation byte
            int need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
            return need > back ? n - back : n;
        }
        return n;
    }

    private static String mib(long bytes) { return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0); }

    /** The per-cell limit: $GLUELAB_CELL_OUTPUT_MIB, default 10 MiB (a notebook larger than that is slow in every front end). */
    public static long limitFromEnvironment() {
        String v = System.getenv("GLUELAB_CELL_OUTPUT_MIB");
        if (v == null || v.isBlank()) return 10L << 20;
        try {
            long mib = Long.parseLong(v.strip());
            if (mib > 0 && mib < (1L << 20)) return mib << 20;
        } catch (NumberFormatException ignored) {
            // said below
        }
        System.err.println("gluelab kernel: GLUELAB_CELL_OUTPUT_MIB must be a whole number of MiB (1 or more), not '" + v + "'; using 10");
        return 10L << 20;
    }
}
