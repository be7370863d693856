package gluelab.chart;

import gluelab.expr.workbench.RegionBench;
import gluelab.expr.workbench.Regions;
import gluelab.rank.Candidate;
import gluelab.rank.Ranking;
import gluelab.record.Row;
import gluelab.trace.TraceCharts;
import gluelab.trace.TraceDiff;
import gluelab.trace.TraceSummary;
import gluelab.tune.ConfigResult;
import gluelab.tune.TuneResult;
import org.knowm.xchart.CategoryChart;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static gluelab.chart.ChartsTest.row;

/**
 * One sample per chart kind gluelab draws, from fixed data chosen to show the chart rules: a noisy
 * point (hollow), a point far outside the axis (clipped), a span past 100x (log). The golden test
 * checks them; their PNGs are the ones in docs/charts/.
 */
enum ChartSamples {
    /** Step 01 / `bench --chart`: a noisy fused row in range (hollow), a 1.4 s glitch (clipped), 20 us to 11 ms (log). */
    BASELINES(() -> {
        List<Row> rows = new ArrayList<>();
        for (long t : new long[]{2048, 32768}) {
            double k = t / 2048.0;
            rows.add(row("rmsnorm", "fwd", "eager", t, 120 * k, 20 * k));
            rows.add(row("rmsnorm", "fwd", "fused", t, t == 2048 ? 55 : 30 * k, 20 * k, t == 2048 ? 0.2 : 0.001));
            rows.add(row("swiglu", "fwd", "eager", t, 700 * k, 150 * k));
            rows.add(row("swiglu", "fwd", "fused", t, t == 32768 ? 1_379_664 : 200 * k, 150 * k, t == 32768 ? 0.2 : 0.001));
        }
        return Charts.baselines(rows, "fwd", "NVIDIA H200");
    }),
    /** Step 02: every point below the 100% line (drawn anyway), a noisy one hollow, a noisy 4,800% glitch clipped. */
    PCT_OF_FLOOR(() -> Charts.percentOfFloor(List.of(
            row("rmsnorm", "fwd", "eager", 32768, 384, 320), row("rmsnorm", "fwd", "fused", 32768, 340, 320),
            row("swiglu", "fwd", "eager", 32768, 3000, 2400, 0.2), row("swiglu", "fwd", "fused", 32768, 50, 2400, 0.2),
            row("rope", "fwd", "eager", 32768, 880, 128)), 32768, "NVIDIA H200")),
    /** % of floor spanning 0.2% to 100% (log), a noisy 0.004% drawn hollow at the bottom. */
    PCT_OF_FLOOR_LOG(() -> Charts.percentOfFloor(List.of(
            row("rmsnorm", "fwd", "eager", 2048, 10000, 20), row("swiglu", "fwd", "fused", 2048, 160, 150),
            row("rope", "fwd", "eager", 2048, 200_000, 8, 0.2)), 2048, "NVIDIA H200")),
    /** Step 04: gaps of 500 us to 1.2 s (log), a noisy candidate hollow, a noisy 25 s glitch clipped (it ranks first: why the mark matters). */
    RANKED(() -> {
        double layer = 30_000_000;
        Candidate big = new Candidate("swiglu", "bwd", "eager", 4096, 1, 1379664.1, 133328.6, layer);
        Candidate noisy = new Candidate(new Candidate("rmsnorm", "fwd", "eager", 4096, 2, 6718.6, 92, layer).key(), 2, 6718.6, 92, layer, "n=1 < 10, noise unknown");
        Candidate glitch = new Candidate(new Candidate("cat", "fwd", "eager", 4096, 1, 25_000_000, 130, layer).key(), 1, 25_000_000, 130, layer, "noise 40.00% > 0.50%");
        Candidate small = new Candidate("rope", "fwd", "eager", 4096, 1, 900, 400, layer);
        return Charts.ranked(Ranking.of(List.of(big, noisy, glitch, small), 0.0001), "NVIDIA H200", "llama-3-8b");
    }),
    /** A PR chart, sound and within 100x: bars with value labels. */
    BEFORE_AFTER(() -> Charts.beforeAfter("q-norm-rope (NVIDIA H200, llama-3-8b, 4,096-16,384 tokens)",
            List.of(Charts.Workload.sound("4k tokens", 410.2, 301.7), Charts.Workload.sound("16k tokens", 1497.0, 1044.0),
                    Charts.Workload.sound("16k tokens, graph replay", 1402.5, 951.3)))),
    /** A PR chart whose 128-token workload is noisy (hollow), 941 us to 1.4 s (log), a noisy 99 s before clipped. */
    BEFORE_AFTER_NOISY(() -> Charts.beforeAfter("swiglu bwd (NVIDIA H200, llama-3-8b, 128-4,096 tokens) [caveat: noisy: 2 of 4 measurements over 0.50%]",
            List.of(new Charts.Workload("128 tokens", 10400.0, 941.0, true), Charts.Workload.sound("4k tokens", 1379664.1, 133328.6),
                    new Charts.Workload("4k tokens, graph replay", 99_000_000, 131000.0, true)))),
    /** Step 03: GPU time per kernel family, within 100x: bars with value labels. */
    FAMILIES(() -> TraceCharts.families(diff(Map.of("gemm", new double[]{4200, 4100}, "norm", new double[]{610, 180},
            "elementwise", new double[]{880, 260}, "copy", new double[]{150, 140})))),
    /** A family only A runs (0 in B: clipped at the bottom of the log axis) beside 3 us to 42 ms. */
    FAMILIES_LOG(() -> TraceCharts.families(diff(Map.of("gemm", new double[]{42000, 41000}, "norm", new double[]{610, 180},
            "cast", new double[]{3.1, 0}, "elementwise", new double[]{880, 260})))),
    /** `tune --charts`: time per config, the pick in its own series, configs dropped after a brief round hollow. */
    TUNE(() -> {
        List<ConfigResult> configs = List.of(
                new ConfigResult("rows=1 vec=4", 0.4, true, 212.0, 0.002, 400, null),
                new ConfigResult("rows=2 vec=8", 0.4, true, 196.1, 0.002, 400, null),
                new ConfigResult("rows=4 vec=8", 0.4, true, 201.5, 0.004, 400, null),
                new ConfigResult("rows=8 vec=2", 0.4, true, 390.0, 0.08, 3, null),
                new ConfigResult("rows=8 vec=4", 0.4, true, 650.0, 0.2, 3, null),
                new ConfigResult("rows=16 vec=1", 0.4, true, 31000.0, 0.001, 400, null),
                new ConfigResult("rows=32 vec=16", 0.4, false, Double.NaN, Double.NaN, 0, new gluelab.ops.Skip("config rows=32 vec=16", "too many registers")));
        TuneResult r = new TuneResult("rmsnorm", "fwd", "bf16", 32768, "32768x4096", "rmsnorm_fwd", "rmsnorm_fwd", "direct", 6, 2.4, 2.4, 5, 1.2,
                "rows=2 vec=8", "rows=4 vec=8", 196.1, 201.5, 1e-3, 2, configs, 1, 1, "nvrtc", false);
        return TuneChart.landscape(r, "NVIDIA H200");
    }),
    /** The regions workbench: % of floor per region and lowering, the 100% line above every point, a noisy row hollow. */
    REGIONS(() -> Regions.chart("cuda, NVIDIA H200", List.of(
            regionRow("q_norm_rope", "fwd", "fused", 81.2, ""), regionRow("q_norm_rope", "fwd", "eager", 23.5, ""),
            regionRow("q_norm_rope", "bwd", "fused", 74.0, ""), regionRow("q_norm_rope", "bwd", "eager", 19.8, "noise 3.10% > 0.50%"))));

    private final Supplier<CategoryChart> chart;

    ChartSamples(Supplier<CategoryChart> chart) { this.chart = chart; }

    CategoryChart chart() { return chart.get(); }

    /** The file name of its golden description and its PNG in docs/charts/. */
    String fileName() { return name().toLowerCase(java.util.Locale.ROOT); }

    private static TraceDiff diff(Map<String, double[]> families) {
        List<TraceDiff.FamilyDelta> deltas = new ArrayList<>();
        new java.util.TreeMap<>(families).forEach((f, ab) -> deltas.add(new TraceDiff.FamilyDelta(f, ab[0], ab[1], ab[1] - ab[0], 10, 10, 0, 0, 0)));
        return new TraceDiff(summary("eager.json"), summary("compiled.json"), deltas, List.of(), 0, 0);
    }

    private static TraceSummary summary(String file) {
        return new TraceSummary(file, "NVIDIA H200", 0, 0, 0, 0, 0, 0, 0, 0, Map.of(), List.of(), List.of(), null, 1, false, null,
                List.of(), Map.of(), Map.of(), Map.of());
    }

    private static RegionBench.Row regionRow(String name, String pass, String lowering, double pct, String noisy) {
        return new RegionBench.Row(name, pass, lowering, 1, 1 << 20, 1 << 20, 0, 10, 10 * 100 / pct, pct, 1, noisy);
    }
}
