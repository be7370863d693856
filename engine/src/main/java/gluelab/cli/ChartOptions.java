package gluelab.cli;

import gluelab.chart.Charts;
import gluelab.record.Row;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** bench's {@code --chart}: all rows of each pass (gluelab's and, with --with torch, torch's) on one chart. */
public final class ChartOptions {
    @Option(names = "--chart", paramLabel = "BASE", description = "save the chart of all rows per pass as BASE-fwd.png/.svg, BASE-bwd...; BASE's folder must exist")
    Path chart;

    /** Fails, naming --chart, when BASE's folder is missing or not writable: before any measuring, not after. */
    void check() {
        if (chart == null) return;
        Path folder = chart.toAbsolutePath().normalize().getParent();
        if (!Files.isDirectory(folder)) throw new IllegalArgumentException("--chart " + chart + ": folder " + folder + " does not exist; create it or name another");
        if (!Files.isWritable(folder)) throw new IllegalArgumentException("--chart " + chart + ": folder " + folder + " is not writable");
    }

    /**
     * Draws one chart per pass of {@code rows}, {@code device} in each title, saying where each went
     * and its title (or why it could not be drawn) on {@code out}. A chart that cannot be written
     * (a full disk) is an error; one that cannot be drawn (no fonts) is said and skipped.
     */
    void draw(List<Row> rows, String device, PrintStream out) {
        if (chart == null) return;
        for (String pass : rows.stream().map(r -> r.pass().id()).distinct().toList()) {
            try {
                var c = Charts.baselines(rows, pass, device);
                out.println("chart: " + Charts.save(c, Path.of(chart + "-" + pass)) + ": " + c.getTitle());
            } catch (java.io.UncheckedIOException e) {
                throw e; // drawn but not written (a full disk): an error, not a host without fonts
            } catch (RuntimeException | Error e) {
                // A host without fonts (a bare GPU host) cannot draw charts; the rows must still come out.
                if (e instanceof VirtualMachineError vm) throw vm;
                out.println("chart " + pass + " not drawn on this host (" + e.getMessage() + "); draw it where fonts exist");
            }
        }
    }
}
