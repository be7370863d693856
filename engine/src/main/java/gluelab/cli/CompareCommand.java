package gluelab.cli;

import gluelab.record.RecordStore;
import gluelab.report.MedianComparison;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Compare two runs' row medians by key (op, pass, variant, replay, tokens, dtype) and list the rows that differ by more than --bound: "
                + "two demos (bound 2%%), a demo and one with 10x the --min-time (bound 1%%). Exit 1 when a row is over the bound.")
public final class CompareCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "A", description = "a run folder, its record.json, a demo's --out folder holding one run, or bench --json output")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "the run to compare with (same forms as A); diff = A / B - 1")
    Path b;

    @Option(names = "--bound", defaultValue = "2", converter = UnitNumbers.Percent.class, description = "percentage a row's medians may differ by (default: ${DEFAULT-VALUE})")
    double boundPercent;

    @Override public Integer call() {
        if (!(boundPercent > 0 && boundPercent < 100)) throw new IllegalArgumentException("--bound must be a percentage > 0 and < 100, got " + boundPercent);
        MedianComparison c = MedianComparison.of(RecordStore.loadRows(a), RecordStore.loadRows(b), boundPercent / 100);
        if (c.pairs().isEmpty()) throw new IllegalArgumentException("no row of " + a + " has a match in " + b + " (same op, pass, variant, replay, tokens and dtype)");
        System.out.println(c.summary());
        if (!c.agree()) System.out.println(c.overTable().printAll());
        return c.agree() ? 0 : 1;
    }
}
