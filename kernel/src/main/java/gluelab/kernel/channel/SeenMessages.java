package gluelab.kernel.channel;

import java.util.LinkedHashSet;
import java.util.SequencedSet;

/**
 * The ids of the signed messages received so far, bounded: the signature covers the header, so a
 * header id seen before means a replayed message. Like Jupyter's Session digest history, the
 * oldest tenth is culled when it is full.
 */
public final class SeenMessages {
    public static final int DEFAULT_CAPACITY = 1 << 16;

    private final int capacity;
    private final SequencedSet<String> ids = new LinkedHashSet<>();

    public SeenMessages(int capacity) { this.capacity = capacity; }

    /** True the first time an id is seen; false for a repeat. */
    public synchronized boolean firstTime(String id) {
        if (id == null || !ids.add(id)) return false;
        if (ids.size() > capacity) {
            for (int cull = Math.max(1, capacity / 10); cull > 0; cull--) ids.removeFirst();
        }
        return true;
    }

    public synchronized int size() { return ids.size(); }
}
