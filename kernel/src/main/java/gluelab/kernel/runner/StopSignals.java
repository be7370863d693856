package gluelab.kernel.runner;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.HashMap;
import java.util.Map;

/**
 * SIGINT and SIGTERM during {@code gluelab run}: the running notebook is stopped, its partial
 * executed notebook written (the stopped cell marked), and the run ends with 128 + the signal's
 * number. Without a notebook running, the JVM exits at once with that status.
 */
public final class StopSignals implements AutoCloseable {
    private static final Map<String, Integer> SIGNALS = Map.of("INT", 2, "TERM", 15);

    private final Map<Signal, SignalHandler> previous = new HashMap<>();
    private volatile NotebookRunner current;
    private volatile String received;
    private volatile int status;

    private StopSignals() {}

    public static StopSignals install() {
        StopSignals s = new StopSignals();
        for (var e : SIGNALS.entrySet()) {
            try {
                Signal sig = new Signal(e.getKey());
                s.previous.put(sig, Signal.handle(sig, x -> s.on("SIG" + e.getKey(), 128 + e.getValue())));
            } catch (IllegalArgumentException unsupported) {
                // this platform or JVM (-Xrs) does not let us handle it; the default applies
            }
        }
        return s;
    }

    private void on(String name, int exitStatus) {
        if (received != null) Runtime.getRuntime().halt(exitStatus); // a second signal: stop now
        received = name;
        status = exitStatus;
        NotebookRunner run = current;
        if (run == null) System.exit(exitStatus);
        else run.stop("stopped by " + name + " while this cell ran", name, exitStatus);
    }

    public void current(NotebookRunner run) { current = run; }

    /** The signal received, like "SIGTERM", or null. */
    public String received() { return received; }

    public int exitStatus() { return status; }

    @Override public void close() { previous.forEach(Signal::handle); }
}
