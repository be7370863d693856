package gluelab.cli;

import gluelab.compilelog.CompileLogTest;
import gluelab.files.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class CompileLogCommandTest {
    @Test void seedReproLogGivesTheBudgetAndTheFix() throws Exception {
        var r = CliTest.run("compile-log", CompileLogTest.log("layer_idx_guard").toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("forward (make_logs.py:40)"), r.out());
        assertTrue(r.out().contains("limit hit"), r.out());
        assertTrue(r.out().contains("hoist the index out"), r.out());
        var json = CliTest.run("compile-log", CompileLogTest.log("layer_idx_fixed").toString(), "--json");
        var tree = Json.MAPPER.readTree(json.out());
        assertEquals(1, tree.get("entries").get(0).get("graphs").asInt(), json.out());
        assertEquals(8, tree.get("limit").asInt());
    }

    @Test void aFileThatIsNoLogIsBadInput(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("x.txt"), "nothing here\n");
        CliTest.assertBadInput(CliTest.run("compile-log", f.toString()), f + ": no torch log lines");
    }
}
