package gluelab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import gluelab.kernel.runner.NotebookRunner;
import gluelab.files.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

@Tag("slow")
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
        assertEquals("display_data", cells.get(3).get("outputs").get(0).get("output_type").asText(), cells.get(3).toString());
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

    @Test
    void outPointingAtTheInputsFolderNeverOverwritesItAndParametersAreInjectedOnce(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "p.ipynb", "#params\nint tokens = 1;\nString model = \"m\";\ndouble f = 0.5;", "tokens * 2");
        String source = Files.readString(nb);
        NotebookRunner.Result r = NotebookRunner.run(nb, dir, Map.of("tokens", "256"));
        assertTrue(r.ok(), r.summary());
        assertEquals(source, Files.readString(nb), "the input is untouched");
        assertEquals(dir.resolve("p.out.ipynb"), r.executed());
        // Running the executed notebook again replaces its injected cell instead of stacking a second one.
        NotebookRunner.Result again = NotebookRunner.run(r.executed(), dir.resolve("o2"), Map.of("tokens", "\"300\"", "model", "\"llama-3-8b\"", "f", "2"));
        assertTrue(again.ok(), again.summary());
        JsonNode cells = Json.MAPPER.readTree(again.executed().toFile()).get("cells");
        int injected = 0;
        for (JsonNode c : cells) if (c.path("id").asText().equals("injected-parameters")) injected++;
        assertEquals(1, injected);
        String src = cells.get(1).get("source").asText();
        assertTrue(src.contains("tokens = 300;") && src.contains("model = \"llama-3-8b\";") && src.contains("f = 2.0;"), src);
        assertEquals("600", cells.get(2).get("outputs").get(0).get("data").get("text/plain").asText());
    }

    @Test
    void aBatchGivesEachParameterToTheNotebooksThatDeclareIt(@TempDir Path dir) throws Exception {
        Path plan = notebook(dir, "00.ipynb", "#params\nString experiment = \"demo\";\nString tokens = \"8\";", "experiment + \":\" + tokens");
        Path later = notebook(dir, "01.ipynb", "#params\nString experiment = \"demo\";", "experiment");
        var runs = NotebookRunner.prepareAll(java.util.List.of(plan, later), dir.resolve("out"), Map.of("experiment", "story", "tokens", "16"));
        var first = runs.get(0).execute(60);
        var second = runs.get(1).execute(60);
        assertTrue(first.ok() && second.ok(), first.summary() + " / " + second.summary());
        assertEquals("story:16", Json.MAPPER.readTree(first.executed().toFile()).get("cells").get(2).get("outputs").get(0).get("data").get("text/plain").asText());
        JsonNode laterCells = Json.MAPPER.readTree(second.executed().toFile()).get("cells");
        assertEquals("experiment = \"story\";\n", laterCells.get(1).get("source").asText().replace("// Injected parameters\n", ""));
        var nowhere = assertThrows(IllegalArgumentException.class,
                () -> NotebookRunner.prepareAll(java.util.List.of(plan, later), dir.resolve("out"), Map.of("tokenz", "1")));
        assertTrue(nowhere.getMessage().contains("'tokenz'") && nowhere.getMessage().contains("[experiment, tokens]"), nowhere.getMessage());
    }

    @Test
    void parameterValuesMustFitTheDeclaredType(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "t.ipynb", "#params\nint tokens = 1;", "tokens");
        var e = assertThrows(IllegalArgumentException.class, () -> NotebookRunner.run(nb, dir.resolve("o"), Map.of("tokens", "many")));
        assertTrue(e.getMessage().contains("tokens") && e.getMessage().contains("int"), e.getMessage());
        var undeclared = assertThrows(IllegalArgumentException.class, () -> NotebookRunner.run(nb, dir.resolve("o"), Map.of("tokenz", "1")));
        assertTrue(undeclared.getMessage().contains("tokenz") && undeclared.getMessage().contains("[tokens]"), undeclared.getMessage());
    }

    @Test
    void parametersNamedLikeCliOptionsAreCheckedAsTheOptionsBeforeAnyCellRuns(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "plan.ipynb", "#params\nString experiment = \"demo\";\nString model = \"llama-3-8b\";\nString tokens = \"32\";\n"
                + "double stopFraction = 0.01;\nString device = \"auto\";", "tokens");
        Map<String, String> bad = Map.of("tokens", "3x", "model", "gpt-9", "device", "tpu", "stopFraction", "2", "experiment", "../up");
        Map<String, String> says = Map.of("tokens", "token count '3x' is not a whole number", "model", "unknown model spec 'gpt-9'",
                "device", "unknown device 'tpu'", "stopFraction", "--stop-fraction must be in (0, 1), got 2", "experiment", "experiment name '../up' must be");
        for (var e : bad.entrySet()) {
            var error = assertThrows(IllegalArgumentException.class, () -> NotebookRunner.prepare(nb, dir.resolve("out"), Map.of(e.getKey(), e.getValue())));
            assertTrue(error.getMessage().contains("parameter '" + e.getKey() + "'") && error.getMessage().contains(says.get(e.getKey())),
                    e.getKey() + ": " + error.getMessage());
        }
        var twice = assertThrows(IllegalArgumentException.class, () -> NotebookRunner.prepare(nb, dir.resolve("out"), Map.of("tokens", "2048,2k")));
        assertTrue(twice.getMessage().contains("give 2048 twice"), twice.getMessage());
        assertFalse(Files.exists(dir.resolve("out")), "nothing ran");
        NotebookRunner ok = NotebookRunner.prepare(nb, dir.resolve("out"), Map.of("tokens", "2k,4k", "model", "deepseek-v3", "device", "cpu", "stopFraction", "0.02"));
        assertEquals(dir.resolve("out/plan.ipynb"), ok.executed());
    }

    /** {@code gluelab run a/x.ipynb b/x.ipynb --out o} wrote both to o/x.ipynb, one lost and both reported ok (issue 23). */
    @Test
    void twoNotebooksOfOneNameGetTwoExecutedCopies(@TempDir Path dir) throws Exception {
        Path a = notebook(Files.createDirectories(dir.resolve("a")), "x.ipynb", "1"), b = notebook(Files.createDirectories(dir.resolve("b")), "x.ipynb", "2");
        var runs = NotebookRunner.prepareAll(java.util.List.of(a, b), dir.resolve("o"), Map.of());
        assertEquals(dir.resolve("o/x.ipynb"), runs.get(0).executed());
        assertEquals(dir.resolve("o/x.2.ipynb"), runs.get(1).executed());
    }

    @Test
    void aNotebookOfAnotherFormatIsRefused(@TempDir Path dir) throws Exception {
        Path nb = Files.writeString(dir.resolve("future.ipynb"), "{\"cells\": [], \"metadata\": {}, \"nbformat\": 99, \"nbformat_minor\": 0}");
        var e = assertThrows(IllegalArgumentException.class, () -> NotebookRunner.prepare(nb, dir.resolve("o"), Map.of()));
        assertTrue(e.getMessage().contains("future.ipynb: field \"nbformat\" is 99"), e.getMessage());
    }

    @Test
    void malformedCellsAreNamedByFileAndIndex(@TempDir Path dir) throws Exception {
        Path nb = Files.writeString(dir.resolve("five.ipynb"), "{\"cells\": [{\"cell_type\": \"code\", \"source\": \"1\"}, 5]}");
        var e = assertThrows(IllegalArgumentException.class, () -> NotebookRunner.run(nb, dir.resolve("o"), Map.of()));
        assertTrue(e.getMessage().contains("five.ipynb") && e.getMessage().contains("cell 1"), e.getMessage());
    }

    @Test
    void exitInACellFailsTheNotebookAndTheJvmGoesOn(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "exit.ipynb", "int a = 1;", "System.exit(0);", "a + 1");
        NotebookRunner.Result r = NotebookRunner.run(nb, dir.resolve("out"), Map.of());
        assertFalse(r.ok());
        assertEquals(1, r.failedCell());
        assertTrue(r.error().contains("System.exit is not allowed in a cell"), r.error());
    }

    @Test
    void aRunawayCellIsStoppedByTheCellTimeoutAndMarked(@TempDir Path dir) throws Exception {
        Path nb = notebook(dir, "loop.ipynb", "System.out.println(\"before\");", "long n = 0; while (true) { n++; }", "1");
        long t0 = System.nanoTime();
        NotebookRunner.Result r = NotebookRunner.prepare(nb, dir.resolve("out"), Map.of()).execute(2);
        // A guard against a cell that never stops, not a speed check: JShell's start counts too on a loaded machine.
        assertTrue((System.nanoTime() - t0) / 1e9 < 120);
        assertFalse(r.ok());
        assertEquals(1, r.failedCell());
        assertTrue(r.error().contains("cell timeout of 2 s"), r.error());
        JsonNode cells = Json.MAPPER.readTree(r.executed().toFile()).get("cells");
        assertEquals("before\n", cells.get(0).get("outputs").get(0).get("text").asText());
        assertEquals("stopped", cells.get(1).get("metadata").get("gluelab").get("status").asText());
    }

    @Test
    void aStopFromAnotherThreadWritesThePartialNotebook(@TempDir Path dir) throws Exception {
        Path started = dir.resolve("started");
        Path nb = notebook(dir, "sig.ipynb", "int a = 41;", "Files.writeString(Path.of(" + Json.MAPPER.writeValueAsString(started.toString()) + "), \"\");\nThread.sleep(600_000);", "a + 1");
        NotebookRunner run = NotebookRunner.prepare(nb, dir.resolve("out"), Map.of());
        Thread signal = new Thread(() -> {
            try {
                while (!Files.exists(started)) Thread.sleep(50);
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            run.stop("stopped by SIGTERM while this cell ran", "SIGTERM", 143);
        });
        signal.start();
        NotebookRunner.Result r = run.execute(0);
        signal.join();
        assertFalse(r.ok());
        assertEquals("SIGTERM", r.stoppedBy());
        JsonNode cells = Json.MAPPER.readTree(r.executed().toFile()).get("cells");
        assertEquals(1, cells.get(0).get("execution_count").asInt());
        assertEquals("stopped", cells.get(1).path("metadata").path("gluelab").path("status").asText(), cells.toString());
        assertTrue(cells.get(1).get("outputs").toString().contains("SIGTERM"));
        assertEquals(0, cells.get(2).get("outputs").size());
    }
}
