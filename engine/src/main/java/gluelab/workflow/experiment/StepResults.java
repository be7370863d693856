package gluelab.workflow.experiment;

import gluelab.files.AtomicFiles;
import gluelab.files.Json;

import java.nio.file.Path;

/** The JSON results steps 05-08 keep under {@code steps/NN-name/}: written atomically, read with errors naming the file and field. */
public final class StepResults {
    private StepResults() {}

    public static void save(Path file, Object result) { AtomicFiles.write(file, Json.write(result)); }

    /** Reads a result of {@code type} whose {@code format} field must be {@code format}. */
    public static <T> T load(Path file, Class<T> type, int format) {
        return FolderFile.read(file).require("format", n -> n.isInt() && n.asInt() == format, "format " + format + " (written by another gluelab version?)").as(type);
    }
}
