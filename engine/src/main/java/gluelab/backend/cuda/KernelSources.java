package gluelab.backend.cuda;

import gluelab.backend.cuda.compile.SourceUnit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalogue's CUDA sources: one file per kernel family (base.cu for the eager primitives and
 * calibration, rmsnorm.cu, ...) and the shared headers every file may include, read from
 * $GLUELAB_KERNEL_SOURCES when set (kernel authors iterate without rebuilding), else from the
 * kernels jar. Each unit is handed to the compiler with all the headers, so each header is part of
 * every compile key.
 */
final class KernelSources {
    /** The shared headers (kernels/src/main/cuda/*.cuh; KernelSourcesTest checks the list is the folder's). */
    static final List<String> HEADERS = List.of("glue_types.cuh", "glue_sums.cuh", "glue_config.cuh", "glue_staging.cuh", "glue_dw.cuh");
    /** The base module: eager primitives, column sums, calibration and timing helpers. */
    static final String BASE = "base.cu";

    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Map<String, SourceUnit> units = new java.util.concurrent.ConcurrentHashMap<>();

    private final java.util.function.UnaryOperator<String> reader;

    KernelSources() { this(KernelSources::read); }

    /** Sources read by {@code reader} (file name to text): tests change one file. */
    KernelSources(java.util.function.UnaryOperator<String> reader) {
        this.reader = reader;
        for (String h : HEADERS) headers.put(h, reader.apply(h));
    }

    /** One unit with every header. */
    SourceUnit unit(String file) { return units.computeIfAbsent(file, f -> new SourceUnit(f, reader.apply(f), headers)); }

    private static final java.util.regex.Pattern INCLUDE = java.util.regex.Pattern.compile("(?m)^\\s*#\\s*include\\s+\"([^\"]+)\"");

    /**
     * The shared headers {@code file} includes, directly or through another header, in {@link
     * #HEADERS} order; an include under an #if counts (a family's source hash may then change with a
     * header one of its configs does not compile, never the other way round).
     */
    List<String> includes(String file) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(List.of(unit(file).text()));
        while (!todo.isEmpty()) {
            var m = INCLUDE.matcher(todo.pop());
            while (m.find()) {
                String h = m.group(1);
                if (headers.containsKey(h) && seen.add(h)) todo.push(headers.get(h));
            }
        }
        return HEADERS.stream().filter(seen::contains).toList();
    }

    /**
     * The digest of one family's kernels: its file, the headers it includes and, where the family
     * launches base.cu's kernels too (a column sum), base.cu and its headers. A change elsewhere
     * leaves it as it was, so the family's tuned picks stay valid.
     */
    String familyDigest(String file, boolean usesBase) {
        StringBuilder b = new StringBuilder();
        List<String> files = usesBase ? List.of(file, BASE) : List.of(file);
        java.util.Set<String> hs = new java.util.TreeSet<>();
        for (String f : files) {
            b.append(f).append('\n').append(unit(f).text()).append('\u0000');
            hs.addAll(includes(f));
        }
        for (String h : hs) b.append(h).append('\n').append(headers.get(h)).append('\u0000');
        return SourceUnit.of("family", b.toString()).digest();
    }

    /** The text of every header and the given units, in a fixed order (what a kernel source hash covers). */
    String digestOf(List<String> files) {
        StringBuilder b = new StringBuilder();
        for (String f : files) b.append(unit(f).digest()).append('\n');
        return gluelab.backend.cuda.compile.SourceUnit.of("all", b.toString()).digest();
    }

    static String read(String file) {
        String dir = System.getenv("GLUELAB_KERNEL_SOURCES");
        if (dir != null && !dir.isBlank()) {
            try {
                return Files.readString(Path.of(dir, file));
            } catch (IOException e) {
                throw new IllegalStateException("GLUELAB_KERNEL_SOURCES is set but " + dir + "/" + file + " cannot be read: " + e.getMessage(), e);
            }
        }
        try (InputStream in = KernelSources.class.getResourceAsStream("/gluelab/kernels/" + file)) {
            if (in == null) throw new IllegalStateException("kernel source gluelab/kernels/" + file + " is not on the classpath (gluelab-kernels jar missing)");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read kernel source " + file + ": " + e.getMessage(), e);
        }
    }
}
