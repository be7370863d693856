package gluelab.record;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The one record lifecycle: a run is built in a partial folder of its {@link RecordStore}, its
 * record saved first (so a rendering failure loses no data), then rendered beside it, then the
 * folder is renamed whole; when anything on the way throws, the partial folder keeps a FAILED
 * marker naming the error and the error goes on to the caller.
 */
public final class RecordPublisher {
    /** Draws a record's tables, charts and findings into its folder (the lab's RunReport). */
    @FunctionalInterface
    public interface Renderer {
        Renderer NONE = (record, dir) -> {};

        void render(ExperimentRecord record, Path dir);
    }

    /** A published record and its folder. */
    public record Published(Path dir, ExperimentRecord record) {}

    private final RecordStore store;
    private final Renderer renderer;

    public RecordPublisher(RecordStore store, Renderer renderer) {
        this.store = store;
        this.renderer = renderer == null ? Renderer.NONE : renderer;
    }

    /** A publisher that saves records without rendering them. */
    public RecordPublisher(RecordStore store) { this(store, Renderer.NONE); }

    public RecordStore store() { return store; }

    /** The folder run {@code id} is built in until it is published (where a FAILED marker lands). */
    public Path partial(String id) { return store.partialDir(id); }

    /**
     * Runs {@code work} with run {@code id}'s partial folder in place (a fresh one: an old attempt
     * is cleared), then saves, renders and publishes the record it returns under {@code id}.
     */
    public Published publish(String id, Supplier<ExperimentRecord> work) {
        Path partial = store.begin(id);
        try {
            ExperimentRecord record = work.get();
            if (!record.id().equals(id)) throw new IllegalStateException("record " + record.id() + " published as run " + id);
            RecordStore.save(partial, record);
            renderer.render(record, partial);
            return new Published(store.commit(partial, record), record);
        } catch (RuntimeException | Error e) {
            RecordStore.fail(partial, e);
            throw e;
        }
    }

    /**
     * Keeps a run stopped part-way: its record of what was measured saved in its partial folder,
     * with a FAILED marker saying why ({@code report PARTIAL/record.json} reads it); returns the folder.
     */
    public Path keepPartial(ExperimentRecord partial, String why) {
        Path dir = store.partialDir(partial.id());
        RecordStore.save(dir, partial);
        RecordStore.fail(dir, why + " after " + partial.rows().size() + " measurements; " + RecordStore.RECORD_FILE + " holds them");
        return dir;
    }

    /** Publishes a record already measured. */
    public Published publish(ExperimentRecord record) { return publish(record.id(), () -> record); }

    /**
     * Publishes {@code record} under {@code name} in place of what is there (a re-merge after more
     * shards finished): the new folder is built whole, then swapped in, so there is no moment where
     * neither is there.
     */
    public Path replace(String name, ExperimentRecord record) {
        Path root = store.root(), partial = store.partialDir(name), target = root.resolve(name), old = root.resolve("." + name + ".old");
        try {
            deleteTree(partial);
            Files.createDirectories(partial);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create run folder " + partial + ": " + e.getMessage(), e);
        }
        try {
            RecordStore.save(partial, record);
            renderer.render(record, partial);
            deleteTree(old);
            if (Files.exists(target)) Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            deleteTree(old);
            return target;
        } catch (IOException e) {
            UncheckedIOException u = new UncheckedIOException("cannot publish " + target + ": " + e.getMessage(), e);
            RecordStore.fail(partial, u);
            throw u;
        } catch (RuntimeException | Error e) {
            RecordStore.fail(partial, e);
            throw e;
        }
    }

    /** Deletes a folder and everything under it; nothing when it is not there. */
    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path x : walk.sorted(Comparator.reverseOrder()).toList()) Files.delete(x);
        }
    }
}
