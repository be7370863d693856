package gluelab.sweep;

import gluelab.record.ExperimentRecord;
import gluelab.record.RecordStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Publishes merged experiments as run folders {@code <out>/<model>/}: each is built in a partial
 * folder (record first, then its rendering) and swapped in whole, so a re-merge after more shards
 * finished replaces the old one without a moment where neither is there.
 */
public final class MergeOutput {
    /** Renders tables, charts and findings for a record into a folder (the lab's RunReport). */
    @FunctionalInterface
    public interface Renderer {
        void render(ExperimentRecord record, Path dir);
    }

    private MergeOutput() {}

    public static List<Path> publish(Merge.Result result, Path out, Renderer renderer) {
        List<Path> dirs = new ArrayList<>();
        for (ExperimentRecord r : result.experiments()) {
            String name = r.model();
            Path partial = out.resolve("." + name + ".partial"), target = out.resolve(name), old = out.resolve("." + name + ".old");
            try {
                SweepDir.deleteTree(partial);
                Files.createDirectories(partial);
                RecordStore.save(partial, r);
                renderer.render(r, partial);
                SweepDir.deleteTree(old);
                if (Files.exists(target)) Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
                SweepDir.deleteTree(old);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot publish merged experiment " + target + ": " + e.getMessage(), e);
            }
            dirs.add(target);
        }
        return dirs;
    }
}
