package gluelab.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import gluelab.files.Json;
import gluelab.ops.OpId;
import gluelab.record.ExperimentRecord;
import gluelab.record.RecordStore;
import gluelab.report.Findings;
import gluelab.report.Tables;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A record written before {@code MeasureKey.op} became an {@link OpId} still loads, writes back the
 * same JSON, and renders the same findings and tables. The golden rendering was made from this
 * record by the code before the change (main at 907f6e5) and regenerated once when tables moved to
 * readable numbers (one time unit per column, the rel L2 limit beside each verdict), and once when
 * the results table moved to the column vocabulary ({@code peak_MiB} became {@code peak_mem (GiB)}, one binary unit per column).
 */
class RecordGoldenTest {
    private static final Path RECORD = Path.of("src/test/resources/records/h200-demo");

    /**
     * SHA-256 of {@code Json.write} of this record: what the code before the change wrote, plus the
     * calibration's busy, copyNoise, triadNoise and otherLoad fields at their defaults (a record from
     * before reads as a quiet calibration). Any other change to the written JSON fails here.
     */
    private static final String WRITTEN_BEFORE = "3a03899e544fccfa519cae24a5380c648faf2afbc68d99753379e8a413512048";

    @Test void anOldRecordWritesBackTheSameJson() throws Exception {
        ExperimentRecord r = RecordStore.load(RECORD);
        String written = Json.write(r);
        ObjectMapper m = new ObjectMapper();
        JsonNode file = m.readTree(Files.readString(RECORD.resolve(RecordStore.RECORD_FILE))), back = m.readTree(written);
        assertEquals(file.path("rows").size(), back.path("rows").size());
        for (int i = 0; i < file.path("rows").size(); i++) assertEquals(file.path("rows").get(i).get("key"), back.path("rows").get(i).get("key"));
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(written.getBytes(StandardCharsets.UTF_8)));
        assertEquals(WRITTEN_BEFORE, sha, "the record's JSON as written back changed");
    }

    @Test void anOldRecordRendersAsBefore() throws Exception {
        ExperimentRecord r = RecordStore.load(RECORD);
        RunReport report = new RunReport(r);
        String rendered = Findings.markdown(r, report.ranking(), Map.of())
                + "\n---- baselines\n" + Tables.baselines(r.rows()).printAll()
                + "\n---- results\n" + Tables.results(r.rows()).printAll()
                + "\n---- ranking\n" + report.ranking().table().printAll() + "\n";
        assertEquals(Files.readString(RECORD.resolve("rendered.golden.txt")), rendered);
    }
}
