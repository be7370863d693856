package gluelab.trace;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

import java.util.ArrayList;
import java.util.List;

/** Charts of trace diffs. */
public final class TraceCharts {
    private TraceCharts() {}

    /** GPU time per family, A next to B. */
    public static CategoryChart families(TraceDiff d) {
        String device = d.a().device().equals(d.b().device()) ? d.a().device() : d.a().device() + " vs " + d.b().device();
        CategoryChart c = new CategoryChartBuilder().width(1100).height(550)
                .title("GPU time by kernel family: A vs B" + (device.isBlank() ? "" : " (" + device + ")"))
                .xAxisTitle("family").yAxisTitle("time (us)").build();
        gluelab.chart.Charts.style(c);
        List<String> names = new ArrayList<>();
        List<Double> a = new ArrayList<>(), b = new ArrayList<>();
        for (TraceDiff.FamilyDelta f : d.families()) {
            names.add(f.family());
            a.add(f.aUs());
            b.add(f.bUs());
        }
        c.addSeries("A: " + java.nio.file.Path.of(d.a().file()).getFileName(), names, a);
        c.addSeries("B: " + java.nio.file.Path.of(d.b().file()).getFileName(), names, b);
        return c;
    }
}
