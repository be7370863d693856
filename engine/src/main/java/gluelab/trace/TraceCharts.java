package gluelab.trace;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import java.util.ArrayList;
import java.util.List;

/** Charts of trace diffs. */
public final class TraceCharts {
    private TraceCharts() {}

    /** GPU time per family, A next to B. */
    public static CategoryChart families(TraceDiff d) {
        CategoryChart c = new CategoryChartBuilder().width(1100).height(550).title("GPU time by kernel family: A vs B")
                .xAxisTitle("family").yAxisTitle("time (us)").build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
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
