package gluelab.sweep;

import gluelab.record.ExperimentRecord;
import gluelab.record.RecordPublisher;
import gluelab.record.RecordStore;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Publishes merged experiments as run folders {@code <out>/<model>/}, each replacing the one a
 * merge before it left ({@link RecordPublisher#replace}: built whole, then swapped in).
 */
public final class MergeOutput {
    private MergeOutput() {}

    public static List<Path> publish(Merge.Result result, Path out, RecordPublisher.Renderer renderer) {
        RecordPublisher publisher = new RecordPublisher(new RecordStore(out), renderer);
        List<Path> dirs = new ArrayList<>();
        for (ExperimentRecord r : result.experiments()) dirs.add(publisher.replace(r.model(), r));
        return dirs;
    }
}
