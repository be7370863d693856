package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.kernel.runner.NotebookRunner;
import gluelab.files.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class NotebookRunnerTest {
    static Path notebook(Path dir, String name, String... cells) throws Exception {
        StringBuilder sb = new StringBuilder("{\"cells\": [");
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i];
            boolean params = c.startsWith("#params\n");
            if (params) c = c.substring(8);
            if (i > 0) sb.append(',');
            sb.append("{\"cell_type\": \"code\", \"metadata\": {").append(params ? "\"tags\": [\"parameters\"]" : "")
                    .append("}, \"source\": ").append(Json.MAPPER.writeValueAsString(c)).append(", \"outputs\": [], \"execution_count\": null}");
        }
        sb.append(", {\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": \"done\"}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 4}");
        Path p = dir.resolve(name);
        Files.writeString(p, sb.toString());
        return p;
    }

    @Test
    void executesCellsAndWritesOutputsWithInjectedParameters(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "ok.ipynb", "#params\nint n = 2;\nString who = \"x\";", "System.out.println(\"hello \" + who);\nn * 21",
                "Session.display(Table.create(\"t\"));");
        NotebookRunner.Result r = NotebookRunner.run(nb, dir.resolve("out"), Map.of("n", "3", "who", "gluelab"));
        assertTrue(r.ok(), r.summary());
        JsonNode done = Json.MAPPER.readTree(r.executed().toFile());
        assertEquals(5, done.get("nbformat_minor").asInt());
        JsonNode cells = done.get("cells");
        assertEquals("injected-parameters", cells.get(1).get("id").asText());
        JsonNode outs = cells.get(2).get("outputs");
        assertEquals("hello gluelab\n", outs.get(0).get("text").asText());
        assertEquals("63", outs.get(1).get("data").get("text/plain").asText());
        assertEquals(3, outs.get(1).get("execution_count").asInt());
        assertEquals("display_data", cells.get(3).get("outputs").get(0).get("output_type").asText());
        assertTrue(cells.get(4).has("id"), "every cell gets an id (nbformat 4.5)");
    }

    @Test
    void theFirstFailingCellStopsTheRunAndIsNamed(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "bad.ipynb", "int a = 1;", "String s = 5;", "a + 1");
        NotebookRunner.Result r = NotebookRunner.run(nb, dir.resolve("out"), Map.of());
        assertFalse(r.ok());
        assertEquals(1, r.failedCell());
        assertTrue(r.summary().contains("bad.ipynb") && r.summary().contains("cell 1") && r.summary().contains("compile error"), r.summary());
        JsonNode cells = Json.MAPPER.readTree(r.executed().toFile()).get("cells");
        assertEquals("error", cells.get(1).get("outputs").get(0).get("output_type").asText());
        assertEquals(0, cells.get(2).get("outputs").size(), "cells after the failure are not run");
    }

    @Test
    void parametersNeedATaggedCellAndValidNames(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "plain.ipynb", "1");
        var e = assertThrows(IllegalArgumentException.class, () -> NotebookRunner.run(nb, dir, Map.of("x", "1")));
        assertTrue(e.getMessage().contains("no cell tagged 'parameters'"));
        Path withParams = notebook(dir, "p.ipynb", "#params\nint x = 1;");
        assertThrows(IllegalArgumentException.class, () -> NotebookRunner.run(withParams, dir, Map.of("not valid", "1")));
        Path notNb = Files.writeString(dir.resolve("x.ipynb"), "{\"hello\": 1}");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NotebookRunner.run(notNb, dir, Map.of())).getMessage().contains("not a Jupyter notebook"));
    }
}
