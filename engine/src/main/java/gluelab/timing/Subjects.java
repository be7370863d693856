package gluelab.timing;

import gluelab.device.Device;
import gluelab.device.Launch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The subjects of one interleaved screen, each under its key, with the graph twins made for them
 * (closed with this, last made first). The bench and a confirmation's step timing build their
 * screens here, so a direct row and its graph row are paired the same way everywhere.
 */
public final class Subjects<K> implements AutoCloseable {
    /** A subject's key and what it measured. */
    public record Timed<K>(K key, Measurement measurement) {}

    private final Device device;
    private final List<Harness.Subject> subjects = new ArrayList<>();
    private final List<K> keys = new ArrayList<>();
    private final List<GraphTwin> twins = new ArrayList<>();

    public Subjects(Device device) { this.device = device; }

    public Subjects<K> add(K key, Harness.Subject subject) {
        subjects.add(subject);
        keys.add(key);
        return this;
    }

    /** Adds {@code launch}'s graph twin under {@code graphKey} where the device has graph replay. */
    public Subjects<K> addGraphTwin(K graphKey, Launch launch, String label, long bytes, StopRule stop) {
        GraphTwin.of(device, launch, label, bytes, stop).ifPresent(twin -> {
            twins.add(twin);
            add(graphKey, twin.subject());
        });
        return this;
    }

    public boolean isEmpty() { return subjects.isEmpty(); }

    /** Times every subject interleaved; the measurements in the order the subjects were added. */
    public List<Timed<K>> interleave(Harness harness, TimingConfig timing) {
        List<Measurement> ms = harness.interleave(subjects, timing);
        List<Timed<K>> out = new ArrayList<>();
        for (int i = 0; i < ms.size(); i++) out.add(new Timed<>(keys.get(i), ms.get(i)));
        return out;
    }

    @Override public void close() {
        List<GraphTwin> reversed = new ArrayList<>(twins);
        Collections.reverse(reversed);
        reversed.forEach(GraphTwin::close);
        twins.clear();
    }
}
