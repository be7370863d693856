package gluelab.lab;

import gluelab.workflow.fix.Attempt;
import gluelab.workflow.fix.FixResult;
import gluelab.workflow.fix.FixSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Step 05's chart: the device the fixes were measured on in its title, a noisy fix drawn hollow, times in the unit the data pick. */
class FixChartTest {
    static Attempt attempt(String op, double beforeUs, double afterUs, String noisy) {
        return new Attempt(op, "fwd", 4096, FixSource.CATALOGUE_VARIANT, "fused", beforeUs, afterUs, afterUs / 2, Attempt.Status.MEASURED, "", noisy);
    }

    @Test
    void theFixChartNamesItsDeviceAndHollowsANoisyFix() {
        FixResult fix = new FixResult(FixResult.FORMAT, List.of("rmsnorm fwd T=4096", "swiglu fwd T=4096"),
                List.of(attempt("rmsnorm", 52_000, 31_000, ""), attempt("swiglu", 140_000, 96_000, "fixed: n=3 < 10")), List.of(), List.of(), List.of(),
                null, List.of(), "NVIDIA H200");
        var chart = Gluelab.fixChart(fix);
        assertTrue(chart.getTitle().endsWith("(NVIDIA H200)"), chart.getTitle());
        assertTrue(chart.getSeriesMap().keySet().stream().anyMatch(s -> s.contains("noisy")), chart.getSeriesMap().keySet().toString());
        assertTrue(chart.getYAxisTitle().startsWith("time (ms"), "31,000-140,000 us are drawn in ms: " + chart.getYAxisTitle());
        FixResult old = new FixResult(FixResult.FORMAT, List.of("rmsnorm fwd T=4096"), List.of(attempt("rmsnorm", 52, 31, "")), List.of(), List.of(),
                List.of(), null, List.of(), null);
        assertTrue(Gluelab.fixChart(old).getTitle().endsWith("(device not recorded)"), "a result saved before the device was kept says so");
        assertEquals("time (us)", Gluelab.fixChart(old).getYAxisTitle());
    }
}
