package gluelab.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.progress.Progress;

import java.time.Duration;

/**
 * A request whose units (a tree at a token count, a profiled tree, a fix in a dtype) the harness sends back one by one as
 * the parts of its progress lines, so that a harness process that dies (os._exit, a crash in C, or ended for its silence)
 * costs only the unit in flight: that unit is failed with how the process ended, and the units after it run in a fresh
 * harness, which skips the units done ({@code "skip"} in the request). A part finishes one unit, or as many as its
 * {@code "units"} says (a dtype whose model failed stands for its fixes too).
 */
final class ResumedCall {
    /** What the caller keeps of the parts, and what a death costs it. */
    interface Units {
        void part(JsonNode part);

        /** The unit {@code index} (the units before it done) failed with {@code reason}; how many units that failure ends (1 or more). */
        int failed(int index, String reason);
    }

    private ResumedCall() {}

    /**
     * Runs {@code req} until its {@code units} are done, on {@code bridge} or, once it has died (before this call too), on a
     * fresh harness of the same Python, which is closed at the end. Returns the last reply, or null when the last harness died.
     * A failed reply (bad input, a harness error) throws as {@link TorchBridge#call} does.
     */
    static JsonNode run(TorchBridge bridge, ObjectNode req, String what, int units, Progress progress, Duration silence, Units out) {
        return run(bridge, req, what, 0, units, progress, silence, out);
    }

    /** As above, the first {@code first} units done already (kept from a step that stopped part-way): the harness skips them. */
    static JsonNode run(TorchBridge bridge, ObjectNode req, String what, int first, int units, Progress progress, Duration silence, Units out) {
        int[] done = {first};
        if (first >= units) return null;
        JsonNode reply = null;
        TorchBridge current = bridge;
        try {
            if (!current.alive()) current = bridge.restarted();
            while (done[0] < units) {
                req.put("skip", done[0]);
                TorchBridge.Watch watch = new TorchBridge.Watch(progress, p -> {
                    out.part(p);
                    done[0] += Math.max(1, p.path("units").asInt(1));
                }, silence);
                try {
                    reply = current.call(req, what, watch);
                    break;
                } catch (TorchException e) {
                    if (e.kind() != TorchException.Kind.CRASHED || done[0] >= units) throw e;
                    reply = null;
                    done[0] += Math.max(1, out.failed(done[0], "the torch harness's Python process " + current.ended()));
                    if (done[0] >= units) break;
                    if (current != bridge) current.close();
                    try {
                        current = bridge.restarted();
                    } catch (TorchException startFailed) {
                        while (done[0] < units) done[0] += Math.max(1, out.failed(done[0], "not run: no fresh torch harness after the last one ended: "
                                + startFailed.getMessage()));
                    }
                }
            }
        } finally {
            if (current != bridge) current.close();
        }
        return reply;
    }
}
