package gluelab.timing;

import gluelab.device.Device;
import gluelab.device.Launch;

import java.util.Optional;

/**
 * A launch's CUDA-graph replay twin, made in this one place for every caller (the bench, a
 * confirmation's step, a launch timed alone): {@link TimedLaunch#GRAPH_REPEATS} launches captured
 * in one graph, timed as a subject labelled {@code label + " (graph)"} on the graph replays' own
 * sample budget ({@link StopRule#forGraphReplays()}). Close it after timing to free the graph.
 */
public record GraphTwin(Launch graph, Harness.Subject subject) implements AutoCloseable {
    /** The twin of {@code launch}, where the device has graph replay; empty elsewhere. */
    public static Optional<GraphTwin> of(Device device, Launch launch, String label, long bytes, StopRule stop) {
        if (!device.capabilities().graphReplay()) return Optional.empty();
        return device.graph(launch, TimedLaunch.GRAPH_REPEATS).map(g -> new GraphTwin(g, new Harness.Subject(label, g, bytes, stop.forGraphReplays())));
    }

    @Override public void close() { graph.close(); }
}
