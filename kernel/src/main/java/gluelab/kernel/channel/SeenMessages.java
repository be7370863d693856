package gluelab.kernel.channel;

import java.util.LinkedHashSet;
import java.util.SequencedSet;

/**
 * The signed headers received so far, bounded. The HMAC covers the header, so a header seen before
 * means a replayed message. jjava checks the signature inside its reader and does not hand it out,
 * so where Jupyter's Session keeps the digests, this keeps the header's type, id, session and date
 * (jupyter_client may reuse a msg_id across the manager's and the client's sessions, never with the
 * same type and date). Like Jupyter's digest history, the oldest tenth is culled when it is full.
 */
public final class SeenMessages {
    public static final int DEFAULT_CAPACITY = 1 << 16;

    private final int capacity;
    private final SequencedSet<String> ids = new LinkedHashSet<>();

    public SeenMessages(int capacity) { this.capacity = capacity; }

    /** True the first time a header is seen; false for a repeat. */
    public boolean firstTime(org.dflib.jjava.jupyter.messages.Header<?> h) {
        var date = h.getTimestamp();
        return firstTime(h.getType().getName() + "|" + h.getId() + "|" + h.getSessionId() + "|" + (date == null ? "" : date.getDateString()));
    }

    synchronized boolean firstTime(String key) {
        if (!ids.add(key)) return false;
        if (ids.size() > capacity) {
            for (int cull = Math.max(1, capacity / 10); cull > 0; cull--) ids.removeFirst();
        }
        return true;
    }

    public synchronized int size() { return ids.size(); }
}
