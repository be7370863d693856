package gluelab.chart;

import gluelab.timing.StopRule;
import gluelab.tune.ConfigResult;
import gluelab.tune.TuneResult;
import org.knowm.xchart.CategoryChart;

import java.util.ArrayList;
import java.util.List;

/** The tuning landscape of one instance: time per config, the pick in its own series. */
public final class TuneChart {
    private TuneChart() {}

    public static CategoryChart landscape(TuneResult r) { return landscape(r, null); }

    /**
     * Time per config as dots (configs can differ by decades: log past a 100x span), the pick in its
     * own series. A config is hollow when its median is not known to the standard rule's bound:
     * fewer samples than the rule asks, or an estimated noise of the median
     * (1.25 x rel. stdev / sqrt(n), the median's standard error) over its bound. Configs dropped
     * after a brief round of successive halving usually are. {@code device} goes into the title (null: left out).
     */
    public static CategoryChart landscape(TuneResult r, String device) {
        StopRule rule = StopRule.standard();
        List<Point> configs = new ArrayList<>(), pick = new ArrayList<>();
        for (ConfigResult cr : r.results()) {
            if (!cr.valid()) continue;
            boolean noisy = cr.samples() < rule.minSamples() || !(1.25 * cr.relStdev() / Math.sqrt(cr.samples()) <= rule.maxNoise());
            (cr.config().equals(r.pick()) ? pick : configs).add(new Point(cr.config(), cr.medianUs(), noisy));
        }
        if (configs.isEmpty() && pick.isEmpty()) throw new IllegalArgumentException(r.label() + ": no timed config to chart");
        List<String> order = r.results().stream().filter(ConfigResult::valid).map(ConfigResult::config).toList();
        return Plot.times(r.label() + " " + r.dtype() + ": time per config (pick: " + r.pick() + ")" + (device == null || device.isBlank() ? "" : " (" + device + ")"),
                        "config", "median time")
                .labelRotation(60).categories(order).series("config", configs).series("pick", pick).chart();
    }
}
