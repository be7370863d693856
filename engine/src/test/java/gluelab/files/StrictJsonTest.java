package gluelab.files;

import gluelab.model.SpecRegistry;
import gluelab.record.RecordStore;
import gluelab.sweep.PlanFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** JSON that was read as if it were whole: text after the value, a key given twice (issue 23's probe). */
class StrictJsonTest {
    static Path record(Path dir) throws Exception {
        Path run = Files.createDirectories(dir.resolve("run"));
        Path src = Path.of(StrictJsonTest.class.getResource("/records/h200-demo/record.json").toURI());
        Files.copy(src, run.resolve("record.json"));
        return run;
    }

    @Test
    void aRecordWithTextAfterItsJsonIsCorrupt(@TempDir Path dir) throws Exception {
        Path run = record(dir);
        assertNotNull(RecordStore.load(run));
        Files.writeString(run.resolve("record.json"), "garbage\n", java.nio.file.StandardOpenOption.APPEND);
        String m = assertThrows(IllegalArgumentException.class, () -> RecordStore.load(run)).getMessage();
        assertTrue(m.contains("corrupt experiment record " + run.resolve("record.json")) && m.contains("line "), m);
    }

    @Test
    void aKeyGivenTwiceIsRefusedNamingIt() {
        String m = assertThrows(IllegalArgumentException.class,
                () -> PlanFile.parse("{\"ops\": \"rmsnorm\", \"tokens\": \"2k\", \"tokens\": \"4k\"}", "plan.json", SpecRegistry.presets())).getMessage();
        assertTrue(m.contains("plan.json") && m.contains("tokens"), m);
        assertTrue(m.toLowerCase(java.util.Locale.ROOT).contains("duplicate"), m);
    }

    @Test
    void aRecordFieldTheFileLacksIsNamedNotAJavaNullPointer() {
        var e = assertThrows(com.fasterxml.jackson.core.JsonProcessingException.class,
                () -> Json.MAPPER.readValue("{\"model\": \"m\", \"pid\": 1}", gluelab.torch.ModelVariantTiming.class));
        assertEquals("a field it needs is missing or null (its fields: model, versions, pid, rows)", Json.problem(e));
    }

    @Test
    void writingIsUnchanged() throws Exception {
        var tree = Json.MAPPER.readTree("{\"a\": [1, 2]}");
        assertEquals(tree, Json.MAPPER.readTree(Json.write(tree)));
        assertThrows(com.fasterxml.jackson.core.JsonProcessingException.class, () -> Json.MAPPER.readTree("{\"a\": 1} {\"a\": 2}"));
    }
}
