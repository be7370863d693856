package gluelab.ops;

import gluelab.files.Json;
import gluelab.tune.ConfigResult;
import gluelab.workflow.confirm.ConfirmedRow;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Rows that carry a {@link Skip} write it as their reason under {@code skipped}, as they did when
 * it was a string, so tuning caches and confirm results from before read back and write back the same.
 */
class SkipJsonTest {
    @Test void aSkippedConfigReadsBackItsReasonUnderItsOwnSubject() throws Exception {
        String before = "{\"config\":\"b128\",\"compileSeconds\":0.5,\"compiled\":true,\"medianUs\":0.0,\"relStdev\":0.0,\"samples\":0,"
                + "\"skipped\":\"exceeds shared memory\"}";
        ConfigResult r = Json.MAPPER.readValue(before, ConfigResult.class);
        assertEquals(new Skip("config b128", "exceeds shared memory"), r.skip());
        assertEquals(Json.MAPPER.readTree(before), Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(r)));
    }

    @Test void aMeasuredConfigHasNoSkipAndWritesNull() throws Exception {
        String before = "{\"config\":\"b128\",\"compileSeconds\":0.5,\"compiled\":true,\"medianUs\":3.0,\"relStdev\":0.01,\"samples\":9,\"skipped\":null}";
        ConfigResult r = Json.MAPPER.readValue(before, ConfigResult.class);
        assertNull(r.skip());
        assertEquals(Json.MAPPER.readTree(before), Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(r)));
    }

    @Test void aConfirmedRowKeepsItsEmptyStringWhenMeasured() throws Exception {
        ConfirmedRow measured = new ConfirmedRow(null, Replay.DIRECT, 2, 3, 1, 3, 3, 1, null);
        assertEquals("", Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(measured)).get("skipped").asText());
        ConfirmedRow back = Json.MAPPER.readValue(Json.MAPPER.writeValueAsString(measured), ConfirmedRow.class);
        assertNull(back.skip());
        ConfirmedRow skipped = new ConfirmedRow(null, Replay.GRAPH, Double.NaN, 0, Double.NaN, 0, 0, Double.NaN, new Skip("x", "no graph replay on cpu"));
        String json = Json.MAPPER.writeValueAsString(skipped);
        assertEquals("no graph replay on cpu", Json.MAPPER.readTree(json).get("skipped").asText());
        assertEquals(new Skip("confirmed row graph", "no graph replay on cpu"), Json.MAPPER.readValue(json, ConfirmedRow.class).skip());
        assertEquals("skipped: no graph replay on cpu", skipped.describe());
    }
}
