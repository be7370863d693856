package gluelab.trace;

import gluelab.chart.Plot;
import gluelab.chart.Point;
import org.knowm.xchart.CategoryChart;

import java.nio.file.Path;
import java.util.List;

/** Charts of trace diffs. */
public final class TraceCharts {
    private TraceCharts() {}

    /** GPU time per family, A next to B: bars with value labels, dots where the times need a log axis. */
    public static CategoryChart families(TraceDiff d) {
        String device = d.a().device().equals(d.b().device()) ? d.a().device() : d.a().device() + " vs " + d.b().device();
        // A trace's kernel times are what ran, not a timed median: no point is noisy.
        List<Point> a = d.families().stream().map(f -> Point.sound(f.family(), f.aUs())).toList();
        List<Point> b = d.families().stream().map(f -> Point.sound(f.family(), f.bUs())).toList();
        return Plot.times("GPU time by kernel family: A vs B" + (device.isBlank() ? "" : " (" + device + ")"), "family", "time")
                .size(1100, 550).bars()
                .series("A: " + Path.of(d.a().file()).getFileName(), a)
                .series("B: " + Path.of(d.b().file()).getFileName(), b)
                .chart();
    }
}
