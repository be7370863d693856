package gluelab.torch;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The torch harnesses the labs of one JVM share: one per Python and device kind, started by the first
 * lab that asks and ended when the last lab holding it closes (or with the JVM). `gluelab run` runs a
 * story's notebooks in one JVM, a lab each: the later steps then find torch, dynamo and Inductor
 * imported and the graphs compiled before loaded, instead of a new interpreter each. Every model
 * step builds its model afresh and resets dynamo, so no step's numbers depend on the one before.
 * Processes the method wants fresh (step 07's) are started with {@link TorchSide#start}, not taken here.
 */
final class SharedHarnesses {
    private record Key(Path python, String device) {}

    private static final class Held {
        final TorchBridge bridge;
        int holders;

        Held(TorchBridge bridge) { this.bridge = bridge; }
    }

    private static final Map<Key, Held> HELD = new HashMap<>();

    private SharedHarnesses() {}

    /** The live harness of {@code python} on {@code device}, started when there is none (a dead one is replaced); held until {@link #release}. */
    static synchronized TorchBridge acquire(Path python, String device) {
        Key key = new Key(python, device);
        Held h = HELD.get(key);
        if (h == null || !h.bridge.alive()) {
            h = new Held(TorchBridge.start(python.toString(), device));
            HELD.put(key, h);
        }
        h.holders++;
        return h.bridge;
    }

    /** One holder of {@code bridge} lets go; the last one ends it. A bridge replaced after it died is only closed. */
    static synchronized void release(TorchBridge bridge) {
        for (var it = HELD.values().iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.bridge != bridge) continue;
            if (--h.holders > 0) return;
            it.remove();
            break;
        }
        bridge.close();
    }
}
