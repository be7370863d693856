package gluelab.timing;

import gluelab.device.Device;
import gluelab.device.Launch;

import java.util.Optional;

/**
 * A launch timed on its own (an analyst's kernel, or a launch timed in a worker process): the
 * direct row, and the CUDA-graph replay row where the device has graphs.
 */
public final class TimedLaunch {
    /** Launches captured per graph; a graph sample is one replay divided by this. */
    public static final int GRAPH_REPEATS = 20;

    /** A launch that knows its name and the bytes its buffer arguments hold. */
    public interface Subject extends Launch {
        String name();

        long bufferBytes();
    }

    /** A subject timed somewhere else: a user kernel is timed in its worker process. */
    public interface TimedElsewhere {
        Timed time(String label, long bytes, TimingConfig timing);
    }

    /** The direct measurement and the CUDA-graph replay one (null where the device has no graphs). */
    public record Timed(Measurement normal, Measurement graph) {}

    private TimedLaunch() {}

    /** Times a launch on this device: the direct row, then the graph row where the device has graphs. */
    public static Timed time(Device device, Launch launch, String label, long bytes, TimingConfig timing) {
        Harness harness = new Harness(device);
        Measurement normal = harness.measure(new Harness.Subject(label, launch, bytes, timing.stop()), timing);
        Measurement graph = null;
        Optional<GraphTwin> g = GraphTwin.of(device, launch, label + " (graph)", bytes, timing.stop());
        if (g.isPresent()) {
            try (GraphTwin twin = g.get()) {
                graph = harness.measure(twin.subject(), timing);
            }
        }
        return new Timed(normal, graph);
    }
}
