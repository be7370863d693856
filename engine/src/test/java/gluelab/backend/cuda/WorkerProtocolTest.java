package gluelab.backend.cuda;

import gluelab.backend.cuda.WorkerProtocol.Arg;
import gluelab.backend.cuda.WorkerProtocol.Reply;
import gluelab.backend.cuda.WorkerProtocol.Request;
import gluelab.timing.Measurement;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.Summary;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The kernel worker's messages survive their trip through JSON (no GPU needed). */
class WorkerProtocolTest {
    @Test
    void requestsAndMeasurementsRoundTrip() {
        Request r = Request.time("scale-ab12", 264, 256, List.of(Arg.buffer("AAEC", 4096), Arg.scalar("i64", 1L << 40, 0), Arg.scalar("f32", 0, 0.5)),
                "scale", 8192, new TimingConfig(Mode.HOT, 0.1, new StopRule(10, 0.1, 0.02, 2, 100), 8));
        assertEquals(r, WorkerProtocol.read(WorkerProtocol.line(r), Request.class));

        Measurement m = new Measurement("scale", Mode.COLD, new double[]{1e-6, 2e-6}, new Summary(1, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, Double.NaN),
                StopRule.Reason.MAX_SAMPLES, 1, 4096, 0.5, 0, 0.004, new StopRule(10, 0.1, 0.02, 2, 100));
        Reply back = WorkerProtocol.read(WorkerProtocol.line(Reply.timed(m, null)), Reply.class);
        assertTrue(back.ok());
        assertArrayEquals(m.samples(), back.normal().samples());
        assertEquals(m.summary(), back.normal().summary(), "NaN statistics survive");
        assertEquals(m.stopReason(), back.normal().stopReason());
        assertEquals(m.rule(), back.normal().rule());
        assertEquals(0.004, back.normal().noise());
        assertNull(back.graph());
    }

    @Test
    void anUnreadableMessageIsNamed() {
        var e = assertThrows(IllegalArgumentException.class, () -> WorkerProtocol.read("{not json", Reply.class));
        assertTrue(e.getMessage().contains("{not json"), e.getMessage());
    }
}
