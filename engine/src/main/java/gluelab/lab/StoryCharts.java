package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.workflow.fix.Attempt;
import gluelab.workflow.fix.FixResult;
import org.knowm.xchart.CategoryChart;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Charts of what the fix step left, for the notebooks. */
final class StoryCharts {
    private StoryCharts() {}

    /** Per candidate (op, pass, tokens): what runs today against its fastest measured fix, win or not. */
    static CategoryChart fixes(FixResult fix) {
        Map<String, Attempt> best = new LinkedHashMap<>();
        for (Attempt a : fix.attempts()) {
            if (!a.measured()) continue;
            String key = a.op() + " " + a.pass() + " T=" + a.tokens();
            Attempt b = best.get(key);
            if (b == null || a.variantUs() < b.variantUs()) best.put(key, a);
        }
        if (best.isEmpty()) throw new IllegalArgumentException("no fix was measured (" + fix.summary() + "): nothing to chart");
        List<Charts.Workload> workloads = new ArrayList<>();
        // A fix whose baseline or own measurement is noisy is drawn hollow (Attempt.noisy).
        best.forEach((key, a) -> workloads.add(new Charts.Workload(key + ": " + a.name(), a.baselineUs(), a.variantUs(), !a.noisy().isEmpty())));
        String device = fix.device() == null || fix.device().isBlank() ? "device not recorded" : fix.device();
        return Charts.beforeAfter("Step 05: each candidate today (before) and with its fastest fix (after) (" + device + ")", workloads, 20);
    }
}
