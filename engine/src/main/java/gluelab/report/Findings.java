package gluelab.report;

import gluelab.units.TimeScale;
import gluelab.calibrate.Calibration;
import gluelab.rank.Candidate;
import gluelab.rank.Ranking;
import gluelab.record.ExperimentRecord;
import gluelab.ops.MeasureKey;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.record.Row;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimedLaunch;
import gluelab.units.Numbers;

import java.util.*;
import java.util.stream.Collectors;

/**
 * The findings doc of a run, in markdown: the summary block first (what a PR quotes), then the
 * ranked candidates, baselines, correctness, environment, and what was not tested.
 */
public final class Findings {
    private Findings() {}

    /** The buffer placements the direct rows rotated through, where any row rotated (records before placements have none). */
    private static String placements(ExperimentRecord r) {
        int most = r.rows().stream().mapToInt(row -> row.measurement().placements()).max().orElse(1);
        if (most <= 1) return "";
        return ", direct rows of small groups rotated through up to " + most + " buffer placements (" + r.parameters().getOrDefault("placements", "?")
                + " asked)";
    }

    public static String markdown(ExperimentRecord r, Ranking ranking, Map<String, String> charts) {
        StringBuilder md = new StringBuilder();
        Calibration cal = r.environment().calibration();
        md.append("# Findings: ").append(r.model()).append(" glue ops on ").append(r.environment().device().name()).append("\n\n");
        md.append("## Summary\n\n");
        md.append("Conditions: ").append(r.model()).append(", ").append(r.rows().isEmpty() ? "-" : r.rows().getFirst().dtype().id())
                .append(", tokens ").append(r.parameters().getOrDefault("tokens", "?")).append(", device ")
                .append(r.environment().device().kind()).append(" (").append(r.environment().device().name()).append("), ")
                .append(String.format("floor bandwidth %.1f GB/s", cal.bandwidth() / 1e9)).append(placements(r)).append(".\n\n");
        md.append("```\n");
        // one unit for the whole block, so its lines compare at a glance
        TimeScale scale = TimeScale.of(ranking.ranked().stream().mapToDouble(Candidate::measuredUs).toArray());
        for (Candidate c : ranking.ranked()) {
            Row fused = find(r.rows(), new MeasureKey(c.op(), c.pass(), Variant.FUSED, Replay.DIRECT, c.tokens(), c.key().dtype()));
            String after = fused == null ? "" : String.format(" -> fused %s (%.2fx)", scale.format(fused.measuredUs()), c.measuredUs() / fused.measuredUs());
            md.append(String.format("%-20s %s T=%d: %s %s%s, ideal %s, %.1f%% of layer%s%n",
                    c.op(), c.pass().id(), c.tokens(), c.variant().id(), scale.format(c.measuredUs()), after, scale.format(c.idealUs()), 100 * c.share(),
                    c.caveat().isEmpty() ? "" : " [noisy: " + c.caveat() + "]"));
        }
        md.append("```\n\n");
        List<String> noisy = Tables.noisy(r.rows());
        if (!noisy.isEmpty()) {
            md.append("**Noisy rows** (").append(noisy.size()).append(" of ").append(r.rows().size())
                    .append("): these stopped on the timeout, have fewer samples than the stop rule asks, or their median's noise is above its bound; ")
                    .append("re-measure them (longer `--timeout`, quieter machine) before quoting them.\n\n");
            for (String line : noisy) md.append("- ").append(line).append('\n');
            md.append('\n');
        }
        md.append(ranking.stopReached()
                ? "Stop rule reached: the remaining gap is under " + pct(ranking.stopFraction()) + " of the layer.\n\n"
                : ranking.worthFixing().size() + " candidate(s) have a gap of at least " + pct(ranking.stopFraction()) + " of the layer"
                + (ranking.toRemeasure().isEmpty() ? ".\n\n" : "; " + ranking.toRemeasure().size() + " of them measured on noisy rows (verdict `remeasure`): their gap may be noise.\n\n"));
        md.append("## Ranked candidates\n\nScore = (measured - ideal) x share of the layer; the layer is the glue below plus its GEMMs and attention at their FLOP floors.\n\n");
        md.append(gluelab.table.TableFormat.markdown(ranking.table())).append('\n');
        chart(md, charts, "ranked");
        md.append("## Baselines: eager vs fused\n\n").append(gluelab.table.TableFormat.markdown(Tables.baselines(r.rows()))).append('\n');
        chart(md, charts, "baselines_fwd");
        chart(md, charts, "baselines_bwd");
        chart(md, charts, "pct_of_floor");
        List<gluelab.check.Correctness> checks = r.rows().stream().map(Row::correctness).filter(java.util.Objects::nonNull).distinct().toList();
        if (!checks.isEmpty()) {
            md.append("## Correctness (vs fp64 reference and vs eager)\n\n").append(gluelab.table.TableFormat.markdown(Tables.correctness(checks))).append('\n');
        }
        md.append("## Environment\n\n");
        for (String line : environment(r)) md.append("- ").append(line).append('\n');
        md.append('\n');
        md.append("## Not tested\n\n");
        for (String line : notTested(r)) md.append("- ").append(line).append('\n');
        md.append("\n## Method\n\n").append(method(r)).append(" See docs/methodology.md.\n");
        return md.toString();
    }

    /**
     * What a run measured, one line each: model and tokens, device, calibration, how samples were
     * taken, versions, commit, the run and its span. The findings of a run and of a change stack
     * both print these.
     */
    public static List<String> measured(ExperimentRecord r) {
        List<String> out = new ArrayList<>();
        out.add("model: " + r.model() + ", " + (r.rows().isEmpty() ? "-" : r.rows().getFirst().dtype().id()) + ", tokens "
                + r.parameters().getOrDefault("tokens", "?"));
        out.addAll(environment(r));
        out.add("timing: " + method(r));
        return out;
    }

    private static List<String> environment(ExperimentRecord r) {
        var env = r.environment();
        return List.of("device: " + env.device().name() + " (" + env.device().kind() + ", " + env.device().cores() + " cores, LLC "
                        + (env.device().lastLevelCacheBytes() >> 20) + " MiB)",
                "calibration: " + env.calibration().describe(),
                "gluelab " + env.gluelabVersion() + ", " + env.jvm() + ", " + env.os(),
                "commit: " + env.gitCommit() + (env.gitDirty() ? " (dirty)" : ""),
                "run: " + r.id() + ", started " + toSecond(env.startedAt()) + ", finished " + toSecond(r.finishedAt()) + span(env.startedAt(), r.finishedAt()));
    }

    private static void chart(StringBuilder md, Map<String, String> charts, String key) {
        if (charts.containsKey(key)) md.append("![").append(key).append("](").append(charts.get(key)).append(")\n\n");
    }

    private static String pct(double f) { return String.format("%.1f%%", 100 * f); }

    static Row find(List<Row> rows, MeasureKey key) {
        for (Row r : rows) if (r.key().equals(key)) return r;
        return null;
    }

    /** What this run did not measure, read from its rows and parameters. */
    public static List<String> notTested(ExperimentRecord r) {
        List<String> out = new ArrayList<>();
        boolean graphs = r.rows().stream().anyMatch(x -> x.replay() == Replay.GRAPH);
        if (!graphs) out.add("CUDA-graph replay rows (the " + r.environment().device().kind() + " device has no graph replay)");
        Set<Pass> passes = r.rows().stream().map(Row::pass).collect(Collectors.toCollection(() -> EnumSet.noneOf(Pass.class)));
        for (Pass p : Pass.values()) if (!passes.contains(p)) out.add(p.id() + " pass (not asked for)");
        Set<Variant> variants = r.rows().stream().map(Row::variant).collect(Collectors.toCollection(() -> EnumSet.noneOf(Variant.class)));
        for (Variant v : Variant.ON_DEVICES) if (!variants.contains(v)) out.add(v.id() + " variant (not asked for)");
        Set<Mode> modes = r.rows().stream().map(x -> x.measurement().mode()).collect(Collectors.toCollection(() -> EnumSet.noneOf(Mode.class)));
        if (!modes.contains(Mode.HOT)) out.add("hot samples (back to back, caches warm): every sample here is cold");
        if (!modes.contains(Mode.COLD)) out.add("cold samples (cache flushed before each): every sample here is hot");
        if (r.rows().stream().noneMatch(x -> x.correctness() != null)) out.add("correctness against the fp64 reference (checks were off)");
        out.add("three fresh processes per confirmation (one process, interleaved screening)");
        return out;
    }

    /** How the samples were taken, from the record's own measurements. */
    public static String method(ExperimentRecord r) {
        Set<Mode> modes = r.rows().stream().map(x -> x.measurement().mode()).collect(Collectors.toCollection(() -> EnumSet.noneOf(Mode.class)));
        List<String> parts = new ArrayList<>();
        if (modes.contains(Mode.COLD)) parts.add("cold samples (last-level cache flushed before each)");
        if (modes.contains(Mode.HOT)) parts.add("hot samples (batches of back-to-back launches)");
        String how = String.join(" and ", parts);
        StopRule rule = r.rows().stream().map(x -> x.measurement().rule()).filter(Objects::nonNull).findFirst().orElse(null);
        String stop = rule == null ? "stop rule not recorded" : String.format(Locale.ROOT,
                "each row stopped once its median's noise was under %s after at least %d samples and %s s of device time, or at a %s s timeout",
                Numbers.percent(rule.maxNoise()), rule.minSamples(), rule.minSeconds(), rule.timeoutSeconds());
        boolean graphs = r.rows().stream().anyMatch(x -> x.replay() == Replay.GRAPH);
        return Character.toUpperCase(how.charAt(0)) + how.substring(1) + ", variants interleaved in one process"
                + (graphs ? ", CUDA-graph rows replaying " + TimedLaunch.GRAPH_REPEATS + " captured launches per sample on their own sample budget" : "")
                + "; " + stop + "; medians reported.";
    }

    /** A recorded instant to the second for reading; anything that is not an instant is shown as recorded. */
    private static String toSecond(String instant) {
        try {
            return Numbers.timestamp(java.time.Instant.parse(instant));
        } catch (RuntimeException e) {
            return String.valueOf(instant);
        }
    }

    private static String span(String started, String finished) {
        try {
            double s = java.time.Duration.between(java.time.Instant.parse(started), java.time.Instant.parse(finished)).toMillis() / 1000.0;
            return String.format(Locale.ROOT, " (%.1f s)", s);
        } catch (RuntimeException e) {
            return "";
        }
    }
}
