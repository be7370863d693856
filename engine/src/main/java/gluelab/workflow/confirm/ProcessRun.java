package gluelab.workflow.confirm;

import java.util.List;
import java.util.Map;

/**
 * One fresh process of a confirmation: its pid, whether it finished ({@code OK}) or not
 * ({@code FAILED}, with the reason: crashed, killed, timed out, throttled, no result), the device's
 * readings (clocks, clock-event reasons, other processes) before and after its timing, and what it timed.
 * A FAILED process contributes nothing to the medians.
 */
public record ProcessRun(int index, long pid, State state, String reason, double seconds, Map<String, String> before,
                         Map<String, String> after, List<Timed> timed) {
    public enum State { OK, FAILED }

    public ProcessRun {
        before = before == null ? Map.of() : Map.copyOf(before);
        after = after == null ? Map.of() : Map.copyOf(after);
        timed = timed == null ? List.of() : List.copyOf(timed);
        reason = reason == null ? "" : reason;
    }

    public boolean ok() { return state == State.OK; }

    static ProcessRun failed(int index, long pid, double seconds, String reason) {
        return new ProcessRun(index, pid, State.FAILED, reason, seconds, Map.of(), Map.of(), List.of());
    }

    /** The SM clock (MHz) before and after, where the device reports one. */
    public String clocks() {
        String b = before.get("sm_clock_mhz"), a = after.get("sm_clock_mhz");
        return b == null && a == null ? "not reported by this device" : "SM " + b + " -> " + a + " MHz";
    }
}
