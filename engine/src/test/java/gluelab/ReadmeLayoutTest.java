package gluelab;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** README's package table names exactly the packages {@link PackageLayersTest#LAYERS} gives a layer. */
class ReadmeLayoutTest {
    static final Path README = Path.of("../README.md");
    /** A package as the table writes it: a backticked name followed by its description in parentheses. */
    static final Pattern NAMED = Pattern.compile("`([a-z][a-z0-9]*(?:\\.[a-z][a-z0-9]*)*)` \\(");

    static Set<String> tablePackages() throws IOException {
        List<String> lines = Files.readAllLines(README);
        int start = lines.indexOf("| layer | packages |");
        assertTrue(start >= 0, "README.md has no '| layer | packages |' table in its Layout section");
        Set<String> named = new TreeSet<>();
        for (int i = start + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            Matcher m = NAMED.matcher(lines.get(i));
            while (m.find()) named.add(m.group(1));
        }
        return named;
    }

    @Test
    void theLayoutTableNamesEveryPackageOfTheLayers() throws IOException {
        Set<String> layers = new TreeSet<>();
        PackageLayersTest.LAYERS.forEach(layers::addAll);
        Set<String> table = tablePackages();
        Set<String> missing = new TreeSet<>(layers);
        missing.removeAll(table);
        Set<String> stale = new TreeSet<>(table);
        stale.removeAll(layers);
        assertEquals(Set.of(), missing, "packages in PackageLayersTest.LAYERS that README.md's layer table does not name");
        assertEquals(Set.of(), stale, "packages README.md's layer table names that PackageLayersTest.LAYERS does not have");
    }
}
