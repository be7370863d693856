package gluelab.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * SIGINT and SIGTERM during a long command ({@code bench}, {@code demo}): {@code keep} saves or
 * prints what was measured, then the process ends at once with 128 + the signal's number. The
 * JVM's own handling waited for the measuring thread and kept nothing. A second signal ends it
 * without waiting for {@code keep}.
 */
final class StopSignals implements AutoCloseable {
    private static final Map<String, Integer> SIGNALS = Map.of("INT", 2, "TERM", 15);

    private final Map<Signal, SignalHandler> previous = new HashMap<>();
    private volatile boolean stopping;

    private StopSignals() {}

    /** Installs the handlers; {@code keep} gets the signal's name ("SIGINT"). */
    static StopSignals install(Consumer<String> keep) {
        StopSignals s = new StopSignals();
        for (var e : SIGNALS.entrySet()) {
            try {
                Signal sig = new Signal(e.getKey());
                s.previous.put(sig, Signal.handle(sig, x -> s.stop("SIG" + e.getKey(), 128 + e.getValue(), keep)));
            } catch (IllegalArgumentException unsupported) {
                // this platform or JVM (-Xrs) does not let us handle it; the default applies
            }
        }
        return s;
    }

    private void stop(String name, int status, Consumer<String> keep) {
        if (stopping) Runtime.getRuntime().halt(status);
        stopping = true;
        try {
            keep.accept(name);
        } catch (RuntimeException e) {
            System.err.println("gluelab: stopped by " + name + "; keeping what was measured failed: " + e.getMessage());
        } finally {
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(status);
        }
    }

    @Override public void close() { previous.forEach(Signal::handle); }
}
