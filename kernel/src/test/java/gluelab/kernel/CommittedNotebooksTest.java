package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.*;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The committed notebooks are the ones bin/refresh-notebooks wrote: valid nbformat 4, executed, and
 * byte for byte what notebooks/SHA256SUMS (written by the same script) says. A notebook that was run in
 * a browser and saved fails here, naming the file and the way back.
 */
class CommittedNotebooksTest {
    static final Path NOTEBOOKS = Path.of("../notebooks").toAbsolutePath().normalize();

    static List<Path> notebooks() throws IOException {
        try (Stream<Path> s = Files.list(NOTEBOOKS)) {
            return s.filter(p -> p.getFileName().toString().matches("\\d\\d-.*\\.ipynb")).sorted().toList();
        }
    }

    static String sha256(Path p) throws IOException, NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }

    @Test
    void everyNotebookIsWhatRefreshNotebooksWrote() throws Exception {
        Map<String, String> sums = new TreeMap<>();
        for (String line : Files.readAllLines(NOTEBOOKS.resolve("SHA256SUMS"))) {
            String[] f = line.split("\\s+\\*?", 2);
            sums.put(f[1], f[0]);
        }
        List<String> problems = new ArrayList<>();
        for (Path nb : notebooks()) {
            String name = nb.getFileName().toString();
            String want = sums.remove(name);
            if (want == null) problems.add("notebooks/" + name + ": not in notebooks/SHA256SUMS (run bin/refresh-notebooks)");
            else if (!want.equals(sha256(nb)))
                problems.add("notebooks/" + name + ": changed since bin/refresh-notebooks wrote it (a run saved from a browser?):"
                        + " git checkout notebooks/" + name + ", or run bin/refresh-notebooks");
        }
        sums.keySet().forEach(n -> problems.add("notebooks/SHA256SUMS: names " + n + ", which is not in notebooks/"));
        assertEquals(List.of(), problems);
    }

    @Test
    void everyNotebookIsExecutedNbformat4() throws IOException {
        List<Path> all = notebooks();
        assertEquals(12, all.size(), all.toString());
        for (Path nb : all) {
            JsonNode root = new ObjectMapper().readTree(nb.toFile());
            assertEquals(4, root.path("nbformat").asInt(), nb + ": nbformat");
            assertEquals("gluelab", root.path("metadata").path("kernelspec").path("name").asText(), nb + ": kernelspec");
            for (JsonNode cell : root.path("cells")) {
                if (!cell.path("cell_type").asText().equals("code")) continue;
                assertTrue(cell.path("execution_count").isInt(), nb + ": cell " + cell.path("id").asText() + " was not executed");
            }
        }
    }
}
