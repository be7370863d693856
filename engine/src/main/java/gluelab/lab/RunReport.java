package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.model.ModelSpec;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.rank.Candidate;
import gluelab.rank.LayerRecipe;
import gluelab.rank.Ranking;
import gluelab.files.AtomicFiles;
import gluelab.record.ExperimentRecord;
import gluelab.record.Row;
import gluelab.report.Findings;

import java.nio.file.Path;
import java.util.*;

/**
 * Everything derived from a record: the ranking at the largest token count, the charts and the
 * findings doc. {@code gluelab report} and the demo both render through here, so a re-render
 * of a saved run is identical to the first.
 */
public final class RunReport {
    private final ExperimentRecord r;
    private Ranking ranking;

    public RunReport(ExperimentRecord record) { this.r = record; }

    public ExperimentRecord record() { return r; }

    /** Ranks the eager (current) direct rows of the ops one layer runs, at the largest measured token count, fwd + bwd. */
    public Ranking ranking() {
        if (ranking == null) ranking = rank();
        return ranking;
    }

    private Ranking rank() {
        ModelSpec spec = r.spec();
        long tokens = r.rows().stream().mapToLong(Row::tokens).max().orElseThrow(() -> new IllegalArgumentException("record " + r.id() + " has no rows"));
        LayerRecipe recipe = LayerRecipe.of(spec);
        List<Row> current = r.rows().stream()
                .filter(x -> x.tokens() == tokens && x.variant() == Variant.EAGER && x.replay() == Replay.DIRECT && recipe.count(x.op()) > 0).toList();
        if (current.isEmpty()) {
            current = r.rows().stream().filter(x -> x.tokens() == tokens && x.replay() == Replay.DIRECT && recipe.count(x.op()) > 0).toList();
        }
        double glue = 0;
        for (Row x : current) glue += x.measuredUs() * recipe.count(x.op());
        boolean withBackward = current.stream().anyMatch(x -> x.pass() == Pass.BACKWARD);
        double layer = glue + recipe.matmulMicros(tokens, r.environment().calibration(), withBackward);
        List<Candidate> cands = new ArrayList<>();
        for (Row x : current) {
            cands.add(new Candidate(x.key(), recipe.count(x.op()), x.measuredUs(), x.idealUs(), layer, x.measurement().noisy().orElse("")));
        }
        return Ranking.of(cands, r.stopFraction());
    }

    /**
     * Writes charts (PNG + SVG) and findings.md into {@code dir}; returns the findings path. A chart
     * that cannot be drawn (a host without fonts) is left out and named in the findings; it never
     * fails the run, whose record is already saved.
     */
    public Path render(Path dir) {
        Ranking ranking = ranking();
        Map<String, String> charts = new LinkedHashMap<>();
        List<String> skipped = new ArrayList<>();
        String device = r.environment().device() == null ? null : r.environment().device().name();
        if (!ranking.ranked().isEmpty()) draw(charts, skipped, "ranked", dir, () -> Charts.ranked(ranking, device, r.spec().name()));
        for (Pass pass : Pass.values()) {
            if (r.rows().stream().anyMatch(x -> x.pass() == pass)) {
                draw(charts, skipped, "baselines_" + pass.id(), dir, () -> Charts.baselines(r.rows(), pass.id(), device));
            }
        }
        long largest = r.rows().stream().mapToLong(Row::tokens).max().orElse(0);
        draw(charts, skipped, "pct_of_floor", dir, () -> Charts.percentOfFloor(r.rows(), largest, device));
        Path findings = dir.resolve("findings.md");
        String md = Findings.markdown(r, ranking, charts);
        if (!skipped.isEmpty()) {
            md += "\n## Charts not drawn here\n\n" + String.join("\n", skipped)
                    + "\n\nRe-render them from the record on a machine with fonts: `gluelab report OUT/" + r.id() + "`.\n";
        }
        AtomicFiles.write(findings, md);
        return findings;
    }

    private static void draw(Map<String, String> charts, List<String> skipped, String name, Path dir,
                             java.util.function.Supplier<org.knowm.xchart.internal.chartpart.Chart<?, ?>> chart) {
        try {
            Charts.save(chart.get(), dir.resolve("charts/" + name));
            charts.put(name, "charts/" + name + ".png");
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vm) throw vm;
            skipped.add("- " + name + ": " + e.getMessage());
        }
    }
}
