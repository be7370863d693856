package gluelab;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every import arrow between the engine's packages points down the layers below; a package
 * may use only packages in lower layers. A new package must be given a layer here, which is
 * the place to decide where it belongs.
 */
class PackageLayersTest {
    /** Bottom first. */
    static final List<List<String>> LAYERS = List.of(
            List.of("files"),
            List.of("units", "progress", "tensor", "model", "compilelog", "figures"),
            List.of("ops", "expr", "table"),
            List.of("device", "devlog", "expr.lower", "expr.eval", "workflow.stack"),
            List.of("backend.eager", "timing", "check", "expr.cuda"),
            List.of("backend.cpu", "backend.cuda.compile", "calibrate"),
            List.of("backend.cuda", "floor", "tune", "expr.cpu"),
            List.of("rank", "record", "expr.run"),
            List.of("chart", "report", "workflow.feedback"),
            List.of("trace", "workflow.experiment", "workflow.writeup"),
            List.of("bench"),
            List.of("torch", "expr.workbench", "sweep", "workflow.graphbudget"),
            List.of("sweep.slurm", "workflow.correctness", "workflow.fix", "expr.catalogue"),
            List.of("workflow.model"),
            List.of("workflow.confirm"),
            List.of("workflow.modelwriteup"),
            List.of("lab"),
            List.of("cli"));

    static final Path SOURCES = Path.of("src/main/java/gluelab");
    static final Pattern REFERENCE = Pattern.compile("\\bgluelab\\.((?:[a-z][a-z0-9_]*\\.)*?[a-z][a-z0-9_]*)\\.(?:[A-Z*])");

    static Map<String, Set<String>> arrows() throws IOException {
        Map<String, Set<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = SOURCES.relativize(f.getParent()).toString().replace('/', '.');
                Set<String> to = out.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(Files.readString(f));
                while (m.find()) if (!m.group(1).equals(pkg)) to.add(m.group(1));
            }
        }
        return out;
    }

    static int layer(String pkg) {
        for (int i = 0; i < LAYERS.size(); i++) if (LAYERS.get(i).contains(pkg)) return i;
        return -1;
    }

    @Test
    void everyPackageHasALayer() throws IOException {
        List<String> missing = arrows().keySet().stream().filter(p -> layer(p) < 0).toList();
        assertEquals(List.of(), missing, "packages without a layer in PackageLayersTest.LAYERS");
    }

    @Test
    void everyArrowPointsDown() throws IOException {
        List<String> up = new ArrayList<>();
        arrows().forEach((from, tos) -> {
            for (String to : tos) if (layer(to) >= layer(from)) up.add(from + " -> " + to);
        });
        assertEquals(List.of(), up, "imports that point sideways or up the layers");
    }

    /**
     * The folders under {@code gluelab/}, bottom first. A folder is a package's first name (the
     * {@code backend} wing holds the CPU, CUDA and eager backends, {@code workflow} the workflow
     * steps, {@code expr} the expressions from their core to the notebook's workbench); it may import
     * only folders in rows above its own, so the folders on disk show the layers too.
     */
    static final List<List<String>> FOLDERS = List.of(
            List.of("files"),
            List.of("units", "progress", "tensor", "model", "compilelog", "devlog", "figures"),
            List.of("ops", "table"),
            List.of("device"),
            List.of("timing", "check"),
            List.of("backend", "calibrate", "tune"),
            List.of("floor", "record"),
            List.of("rank"),
            List.of("chart", "report"),
            List.of("bench", "trace"),
            List.of("expr", "sweep", "torch"),
            List.of("workflow"),
            List.of("lab"),
            List.of("cli"));

    static String folder(String pkg) { int dot = pkg.indexOf('.'); return dot < 0 ? pkg : pkg.substring(0, dot); }

    static int folderRow(String folder) {
        for (int i = 0; i < FOLDERS.size(); i++) if (FOLDERS.get(i).contains(folder)) return i;
        return -1;
    }

    @Test
    void everyFolderImportsOnlyFoldersBelowIt() throws IOException {
        Set<String> up = new TreeSet<>(), placeless = new TreeSet<>();
        arrows().forEach((from, tos) -> {
            if (folderRow(folder(from)) < 0) placeless.add(folder(from));
            for (String to : tos) {
                String a = folder(from), b = folder(to);
                if (!a.equals(b) && folderRow(b) >= folderRow(a)) up.add(a + " -> " + b + " (" + from + " -> " + to + ")");
            }
        });
        assertEquals(Set.of(), placeless, "folders without a row in PackageLayersTest.FOLDERS");
        assertEquals(Set.of(), up, "folders importing a folder beside or above them");
    }

    @Test
    void theScannerSeesArrows() throws IOException {
        // Guards the test itself: a scanner that found nothing would pass everything.
        Map<String, Set<String>> a = arrows();
        assertTrue(a.get("cli").contains("bench"), a.toString());
        assertTrue(a.get("timing").contains("device"), a.toString());
    }
}
