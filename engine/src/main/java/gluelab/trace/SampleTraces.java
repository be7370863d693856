package gluelab.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The PyTorch profiler traces shipped inside gluelab (recorded on an H200; see
 * {@code samples/README.md} beside this class), so notebooks, tests and first tries need nothing
 * outside the project. They live in the jar; {@link #folder()} copies them to a private temporary
 * folder once per process.
 */
public final class SampleTraces {
    public static final List<String> NAMES = List.of("block_eager_T4096.json.gz", "block_compiled_T4096.json.gz",
            "glue_eager_shapes_T8192.json.gz", "glue_compiled_shapes_T8192.json.gz");

    private static Path folder;

    private SampleTraces() {}

    /** A folder holding every sample trace under its name. */
    public static synchronized Path folder() {
        if (folder != null) return folder;
        try {
            Path dir = Files.createTempDirectory("gluelab-sample-traces");
            dir.toFile().deleteOnExit();
            for (String name : NAMES) {
                try (InputStream in = SampleTraces.class.getResourceAsStream("samples/" + name)) {
                    if (in == null) throw new IllegalStateException("sample trace " + name + " is missing from the gluelab jar");
                    Path f = dir.resolve(name);
                    Files.copy(in, f, StandardCopyOption.REPLACE_EXISTING);
                    f.toFile().deleteOnExit();
                }
            }
            return folder = dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the sample traces to a temporary folder: " + e.getMessage(), e);
        }
    }

    /** One sample trace on disk; {@code name} is one of {@link #NAMES}. */
    public static Path of(String name) {
        if (!NAMES.contains(name)) throw new IllegalArgumentException("no sample trace '" + name + "'; there are " + NAMES);
        return folder().resolve(name);
    }
}
