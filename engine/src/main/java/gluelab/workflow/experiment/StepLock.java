package gluelab.workflow.experiment;

import gluelab.files.FileLock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

/**
 * The one step running on an experiment: two steps at once each overwrote the other's files, the last to finish winning.
 * Held by one process (the operating system drops it when that process dies, so a killed step blocks no one) and, in that
 * process, by one thread; that thread may take it again (a command, then the step it runs), and a step taken after the last
 * one ended (a notebook kernel running steps one after another) gets it. The lock file holds what holds it, for the refusal.
 */
public final class StepLock implements AutoCloseable {
    private static final Map<Path, StepLock> HELD = new HashMap<>();

    private final Path file;
    private final FileLock lock;
    private final Thread thread;
    private final String holder;
    private int takes = 1;

    private StepLock(Path file, FileLock lock, String holder) {
        this.file = file;
        this.lock = lock;
        this.thread = Thread.currentThread();
        this.holder = holder;
    }

    /** The lock on {@code file} for {@code step} of experiment {@code experiment}; refused at once when another step holds it. */
    static StepLock take(Path file, String experiment, Step step) {
        synchronized (HELD) {
            StepLock held = HELD.get(file);
            if (held != null) {
                if (held.thread != Thread.currentThread()) throw busy(experiment, held.holder);
                held.takes++;
                return held;
            }
            FileLock lock = FileLock.tryTake(file);
            if (lock == null) throw busy(experiment, holderIn(file));
            String holder = "step " + step + " (pid " + ProcessHandle.current().pid() + ", since " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + ")";
            try {
                lock.describe(holder);
            } catch (java.io.UncheckedIOException e) {
                // A full disk: the lock holds all the same; a step refused meanwhile names "another step".
            }
            StepLock taken = new StepLock(file, lock, holder);
            HELD.put(file, taken);
            return taken;
        }
    }

    private static IllegalStateException busy(String experiment, String holder) {
        return new IllegalStateException("experiment '" + experiment + "' is busy: " + holder + " is running; wait for it or stop it");
    }

    /** What the holder wrote; it may not have written it yet. */
    private static String holderIn(Path file) {
        try {
            String text = Files.readString(file).strip();
            return text.isEmpty() ? "another step" : text;
        } catch (IOException | RuntimeException e) {
            return "another step";
        }
    }

    @Override public void close() {
        synchronized (HELD) {
            if (--takes > 0) return;
            HELD.remove(file);
            lock.close();
        }
    }
}
