package gluelab.tune;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import java.util.ArrayList;
import java.util.List;

/** The tuning landscape of one instance: time per config, the pick in its own series. */
public final class TuneChart {
    private TuneChart() {}

    public static CategoryChart landscape(TuneResult r) {
        CategoryChart c = new CategoryChartBuilder().width(1200).height(600)
                .title(r.label() + " " + r.dtype() + ": time per config (pick: " + r.pick() + ")").xAxisTitle("config").yAxisTitle("median us").build();
        c.getStyler().setXAxisLabelRotation(60);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setOverlapped(true);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        List<String> names = new ArrayList<>();
        List<Double> times = new ArrayList<>(), picked = new ArrayList<>();
        for (ConfigResult cr : r.results()) {
            if (!cr.valid()) continue;
            names.add(cr.config());
            times.add(cr.config().equals(r.pick()) ? 0.0 : cr.medianUs());
            picked.add(cr.config().equals(r.pick()) ? cr.medianUs() : 0.0);
        }
        if (names.isEmpty()) throw new IllegalArgumentException(r.label() + ": no timed config to chart");
        c.addSeries("config", names, times);
        c.addSeries("pick", names, picked);
        return c;
    }
}
