package gluelab.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static gluelab.cli.CliTest.assertBadInput;
import static gluelab.cli.CliTest.run;
import static org.junit.jupiter.api.Assertions.*;

class NcuCommandTest {
    static String csv(String name) throws Exception {
        return Path.of(NcuCommandTest.class.getResource("/ncu/" + name).toURI()).toString();
    }

    @Test
    void readsWhatNcuWrote() throws Exception {
        CliTest.Result raw = run("ncu", csv("h200_raw_metrics.csv"), "--peak", "4800");
        assertEquals(0, raw.code(), raw.err());
        assertTrue(raw.out().contains("scale_copy") && raw.out().contains("spin"), raw.out());
        CliTest.Result details = run("ncu", csv("h200_details_sol.csv"));
        assertEquals(0, details.code(), details.err());
        assertTrue(details.out().contains("not recorded in this CSV"), "no DRAM bytes on the SpeedOfLight page: " + details.out());
        assertFalse(details.out().contains("NaN"), details.out());
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void aPeakThatIsNotPositiveIsRefusedFirst() throws Exception {
        for (String peak : new String[]{"0", "-4800", "NaN", "Infinity"})
            assertBadInput(run("ncu", csv("h200_raw_metrics.csv"), "--peak", peak), "--peak must be a positive number of GB/s");
        assertBadInput(run("ncu", "/no/such.csv"), "ncu CSV /no/such.csv: no such file");
    }
}
