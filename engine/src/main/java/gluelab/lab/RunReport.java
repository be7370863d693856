package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.ops.Pass;
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

    /** The record's ranking ({@link gluelab.report.RecordRanking}). */
    public Ranking ranking() {
        if (ranking == null) ranking = rank();
        return ranking;
    }

    private Ranking rank() { return gluelab.report.RecordRanking.of(r); }

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
