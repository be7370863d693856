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
     * Writes charts (PNG + SVG) into {@code dir/charts} and findings.md into {@code dir}; returns the
     * findings path. A chart that cannot be drawn (a host without fonts) is left out and named in the
     * findings; it never fails the run, whose record is already saved.
     */
    /** Renders a record into its run folder (what a {@link gluelab.record.RecordPublisher} calls). */
    public static final gluelab.record.RecordPublisher.Renderer RENDERER = (record, dir) -> new RunReport(record).render(dir);

    public Path render(Path dir) { return render(dir.resolve("findings.md"), dir.resolve("charts"), ""); }

    /**
     * Writes the summary to {@code summary} and the charts into {@code chartsDir}, each chart's file
     * name starting with {@code chartPrefix} (an experiment keeps every step's charts in one folder);
     * the summary links them relative to itself. Returns the summary's path.
     */
    public Path render(Path summary, Path chartsDir, String chartPrefix) {
        Ranking ranking = ranking();
        Path from = summary.toAbsolutePath().getParent();
        Charting charting = new Charting(from, chartsDir, chartPrefix);
        String device = r.environment().device() == null ? null : r.environment().device().name();
        if (!ranking.ranked().isEmpty()) charting.draw("ranked", () -> Charts.ranked(ranking, device, r.spec().name()));
        for (Pass pass : Pass.values()) {
            if (r.rows().stream().anyMatch(x -> x.pass() == pass)) {
                charting.draw("baselines_" + pass.id(), () -> Charts.baselines(r.rows(), pass.id(), device));
            }
        }
        long largest = r.rows().stream().mapToLong(Row::tokens).max().orElse(0);
        charting.draw("pct_of_floor", () -> Charts.percentOfFloor(r.rows(), largest, device));
        String md = Findings.markdown(r, ranking, charting.links);
        if (!charting.skipped.isEmpty()) {
            md += "\n## Charts not drawn here\n\n" + String.join("\n", charting.skipped)
                    + "\n\nRe-render them from the record on a machine with fonts: `gluelab report OUT/" + r.id() + "`.\n";
        }
        AtomicFiles.write(summary, md);
        return summary;
    }

    /** The charts of one summary: their links (by chart name) and the ones that could not be drawn. */
    private static final class Charting {
        final Map<String, String> links = new LinkedHashMap<>();
        final List<String> skipped = new ArrayList<>();
        private final Path from, dir;
        private final String prefix;

        Charting(Path from, Path dir, String prefix) { this.from = from; this.dir = dir.toAbsolutePath(); this.prefix = prefix; }

        void draw(String name, java.util.function.Supplier<org.knowm.xchart.internal.chartpart.Chart<?, ?>> chart) {
            try {
                Path file = dir.resolve(prefix + name);
                Charts.save(chart.get(), file);
                links.put(name, from.relativize(file).toString().replace(java.io.File.separatorChar, '/') + ".png");
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError vm) throw vm;
                skipped.add("- " + name + ": " + e.getMessage());
            }
        }
    }
}
