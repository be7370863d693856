package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.model.ModelSpec;
import gluelab.rank.Candidate;
import gluelab.rank.LayerRecipe;
import gluelab.rank.Ranking;
import gluelab.record.AtomicFiles;
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
    private RunReport() {}

    /** Ranks the eager (current) rows of the ops one layer runs, at the largest measured token count, fwd + bwd. */
    public static Ranking rank(ExperimentRecord r) {
        ModelSpec spec = r.spec();
        long tokens = r.rows().stream().mapToLong(Row::tokens).max().orElseThrow(() -> new IllegalArgumentException("record " + r.id() + " has no rows"));
        LayerRecipe recipe = LayerRecipe.of(spec);
        List<Row> current = r.rows().stream()
                .filter(x -> x.tokens() == tokens && x.variant().equals("eager") && recipe.count(x.op()) > 0).toList();
        if (current.isEmpty()) {
            current = r.rows().stream().filter(x -> x.tokens() == tokens && recipe.count(x.op()) > 0).toList();
        }
        double glue = 0;
        for (Row x : current) glue += x.measuredUs() * recipe.count(x.op());
        boolean withBackward = current.stream().anyMatch(x -> x.pass().equals("bwd"));
        double layer = glue + recipe.matmulMicros(tokens, r.environment().calibration(), withBackward);
        List<Candidate> cands = new ArrayList<>();
        for (Row x : current) {
            cands.add(new Candidate(x.op(), x.pass(), x.variant(), x.tokens(), recipe.count(x.op()), x.measuredUs(), x.idealUs(), layer));
        }
        return Ranking.of(cands, r.stopFraction());
    }

    /** Writes charts (PNG + SVG) and findings.md into {@code dir}; returns the findings path. */
    public static Path render(ExperimentRecord r, Path dir) {
        Ranking ranking = rank(r);
        Map<String, String> charts = new LinkedHashMap<>();
        if (!ranking.ranked().isEmpty()) {
            Charts.save(Charts.ranked(ranking), dir.resolve("charts/ranked"));
            charts.put("ranked", "charts/ranked.png");
        }
        for (String pass : List.of("fwd", "bwd")) {
            if (r.rows().stream().anyMatch(x -> x.pass().equals(pass))) {
                Charts.save(Charts.baselines(r.rows(), pass), dir.resolve("charts/baselines_" + pass));
                charts.put("baselines_" + pass, "charts/baselines_" + pass + ".png");
            }
        }
        long largest = r.rows().stream().mapToLong(Row::tokens).max().orElse(0);
        Charts.save(Charts.percentOfFloor(r.rows(), largest), dir.resolve("charts/pct_of_floor"));
        charts.put("pct_of_floor", "charts/pct_of_floor.png");
        Path findings = dir.resolve("findings.md");
        AtomicFiles.write(findings, Findings.markdown(r, ranking, charts));
        return findings;
    }
}
