package gluelab.report;

import gluelab.calibrate.Calibration;
import gluelab.rank.Candidate;
import gluelab.rank.Ranking;
import gluelab.record.ExperimentRecord;
import gluelab.record.Row;

import java.util.List;
import java.util.Map;

/**
 * The findings doc of a run, in markdown: the summary block first (what a PR quotes), then the
 * ranked candidates, baselines, correctness, environment, and what was not tested.
 */
public final class Findings {
    private Findings() {}

    public static String markdown(ExperimentRecord r, Ranking ranking, Map<String, String> charts) {
        StringBuilder md = new StringBuilder();
        Calibration cal = r.environment().calibration();
        md.append("# Findings: ").append(r.model()).append(" glue ops on ").append(r.environment().device().name()).append("\n\n");
        md.append("## Summary\n\n");
        md.append("Conditions: ").append(r.model()).append(", ").append(r.parameters().getOrDefault("dtype", "bf16"))
                .append(", tokens ").append(r.parameters().getOrDefault("tokens", "?")).append(", device ")
                .append(r.environment().device().kind()).append(" (").append(r.environment().device().name()).append("), ")
                .append(String.format("floor bandwidth %.1f GB/s", cal.bandwidth() / 1e9)).append(".\n\n");
        md.append("```\n");
        for (Candidate c : ranking.ranked()) {
            Row fused = find(r.rows(), c.op(), c.pass(), "fused", c.tokens());
            String after = fused == null ? "" : String.format(" -> fused %.1f us (%.2fx)", fused.measuredUs(), c.measuredUs() / fused.measuredUs());
            md.append(String.format("%-20s %s T=%d: eager %.1f us%s, ideal %.1f us, %.1f%% of layer%n",
                    c.op(), c.pass(), c.tokens(), c.measuredUs(), after, c.idealUs(), 100 * c.share()));
        }
        md.append("```\n\n");
        md.append(ranking.stopReached()
                ? "Stop rule reached: the remaining gap is under " + pct(ranking.stopFraction()) + " of the layer.\n\n"
                : ranking.worthFixing().size() + " candidate(s) have a gap of at least " + pct(ranking.stopFraction()) + " of the layer.\n\n");
        md.append("## Ranked candidates\n\nScore = (measured - ideal) x share of the layer; the layer is the glue below plus its GEMMs and attention at their FLOP floors.\n\n");
        md.append(Tables.markdown(ranking.table())).append('\n');
        chart(md, charts, "ranked");
        md.append("## Baselines: eager vs fused\n\n").append(Tables.markdown(Tables.baselines(r.rows()))).append('\n');
        chart(md, charts, "baselines_fwd");
        chart(md, charts, "baselines_bwd");
        chart(md, charts, "pct_of_floor");
        List<gluelab.check.Correctness> checks = r.rows().stream().map(Row::correctness).filter(java.util.Objects::nonNull).distinct().toList();
        if (!checks.isEmpty()) {
            md.append("## Correctness (vs fp64 reference and vs eager)\n\n").append(Tables.markdown(Tables.correctness(checks))).append('\n');
        }
        md.append("## Environment\n\n");
        var env = r.environment();
        md.append("- device: ").append(env.device().name()).append(" (").append(env.device().kind()).append(", ")
                .append(env.device().cores()).append(" cores, LLC ").append(env.device().lastLevelCacheBytes() >> 20).append(" MiB)\n");
        md.append("- calibration: ").append(cal.describe()).append('\n');
        md.append("- gluelab ").append(env.gluelabVersion()).append(", ").append(env.jvm()).append(", ").append(env.os()).append('\n');
        md.append("- commit: ").append(env.gitCommit()).append(env.gitDirty() ? " (dirty)" : "").append('\n');
        md.append("- run: ").append(r.id()).append(", started ").append(env.startedAt()).append(", finished ").append(r.finishedAt()).append("\n\n");
        md.append("## Not tested\n\n- CUDA-graph replay rows (CPU run)\n- three fresh processes per confirmation (one process, interleaved screening)\n\n");
        md.append("## Method\n\nCold samples (last-level cache flushed before each), variants interleaved in one process, stop at rel stdev < ")
                .append(r.parameters().getOrDefault("maxRelStdev", "?")).append(" or timeout; medians reported. See docs/methodology.md.\n");
        return md.toString();
    }

    private static void chart(StringBuilder md, Map<String, String> charts, String key) {
        if (charts.containsKey(key)) md.append("![").append(key).append("](").append(charts.get(key)).append(")\n\n");
    }

    private static String pct(double f) { return String.format("%.1f%%", 100 * f); }

    static Row find(List<Row> rows, String op, String pass, String variant, long tokens) {
        for (Row r : rows) if (r.op().equals(op) && r.pass().equals(pass) && r.variant().equals(variant) && r.tokens() == tokens) return r;
        return null;
    }
}
