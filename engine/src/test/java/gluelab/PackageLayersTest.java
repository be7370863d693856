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
            List.of("files", "units", "progress", "tensor", "model", "compilelog", "figures"),
            List.of("ops", "expr"),
            List.of("device", "devlog", "expr.lower", "expr.eval", "stack"),
            List.of("device.eager", "timing", "check", "expr.cuda"),
            List.of("device.cpu", "device.cuda.compile", "calibrate"),
            List.of("device.cuda", "floor", "tune", "expr.cpu"),
            List.of("rank", "record", "expr.run"),
            List.of("chart", "report", "feedback"),
            List.of("trace", "experiment", "writeup"),
            List.of("bench"),
            List.of("torch", "expr.lab", "sweep", "graphbudget"),
            List.of("sweep.slurm", "correctness", "fix", "expr.catalogue"),
            List.of("confirm"),
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

    @Test
    void theScannerSeesArrows() throws IOException {
        // Guards the test itself: a scanner that found nothing would pass everything.
        Map<String, Set<String>> a = arrows();
        assertTrue(a.get("cli").contains("bench"), a.toString());
        assertTrue(a.get("timing").contains("device"), a.toString());
    }
}
