package gluelab.record;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import gluelab.files.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.*;

/** Records whose numbers were read as if sound: medians of 0, samples of 1e308 s, summaries 10x off their samples (issue 23's probe). */
class RecordSamplesTest {
    static Path broken(Path dir, Consumer<ObjectNode> edit) throws Exception {
        Path src = Path.of(RecordSamplesTest.class.getResource("/records/h200-demo/record.json").toURI());
        ObjectNode tree = (ObjectNode) Json.MAPPER.readTree(Files.readString(src));
        edit.accept((ObjectNode) tree.get("rows").get(1).get("measurement"));
        Path run = Files.createDirectories(dir.resolve("run"));
        Files.writeString(run.resolve("record.json"), Json.write(tree));
        return run;
    }

    static String refused(Path run) {
        return assertThrows(IllegalArgumentException.class, () -> RecordStore.load(run)).getMessage();
    }

    @Test
    void theSampleRecordIsSound(@TempDir Path dir) throws Exception {
        assertFalse(RecordStore.load(broken(dir, m -> {})).rows().isEmpty());
    }

    @Test
    void aSummaryTenTimesOffItsSamplesIsRefused(@TempDir Path dir) throws Exception {
        String m = refused(broken(dir, x -> {
            ObjectNode s = (ObjectNode) x.get("summary");
            s.put("median", s.get("median").asDouble() * 10);
        }));
        assertTrue(m.contains("field \"rows[1].measurement.summary.median\"") && m.contains("the summary was not computed from these samples"), m);
    }

    @Test
    void mediansOfZeroAndSamplesOf1e308AreRefused(@TempDir Path dir) throws Exception {
        String zero = refused(broken(dir.resolve("a"), x -> {
            ArrayNode samples = (ArrayNode) x.get("samples");
            for (int i = 0; i < samples.size(); i++) samples.set(i, 0.0);
            ((ObjectNode) x.get("summary")).put("median", 0.0);
        }));
        assertTrue(zero.contains("rows[1].measurement.samples[0]\" is 0.0 s"), zero);
        String huge = refused(broken(dir.resolve("b"), x -> ((ArrayNode) x.get("samples")).set(0, 1e308)));
        assertTrue(huge.contains("rows[1].measurement.samples[0]\" is 1.0E308 s") && huge.contains("under a day"), huge);
    }
}
