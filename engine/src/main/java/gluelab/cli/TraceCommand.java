package gluelab.cli;

import gluelab.chart.Charts;
import gluelab.files.Json;
import gluelab.trace.*;
import gluelab.units.Bandwidth;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "trace", mixinStandardHelpOptions = true, description = "PyTorch profiler traces: kernel tables, families, symptoms, diffs.",
        subcommands = {TraceCommand.Summary.class, TraceCommand.Diff.class})
public final class TraceCommand implements Runnable {
    @Spec Model.CommandSpec spec;

    @Override public void run() { spec.commandLine().usage(System.out); }

    /** Options shared by summary and diff. */
    static final class Common {
        @Option(names = "--json", description = "print JSON") boolean json;

        @Option(names = "--families", description = "file of 'family = regex' lines replacing the default family rules") Path families;

        @Option(names = "--bandwidth", converter = UnitNumbers.GbPerSecond.class, description = "GB/s for ideal times from recorded shapes (e.g. 4272 on the H200)") Double bandwidth;

        @Option(names = "--top", defaultValue = "15", description = "rows to print (default: ${DEFAULT-VALUE})") int top;

        KernelFamilies rules() { return families == null ? KernelFamilies.defaults() : KernelFamilies.parse(families); }

        /** Every option checked before any trace is read. */
        void check() {
            if (top < 1) throw new IllegalArgumentException("--top must be a whole number >= 1 (rows to print), got " + top);
            bandwidthBytes();
        }

        Double bandwidthBytes() {
            return bandwidth == null ? null : Bandwidth.gbPerSecond(bandwidth, "--bandwidth").bytesPerSecond();
        }
    }

    static TraceSummary summarise(Path file, Common c) {
        long t0 = System.nanoTime();
        Trace t = TraceReader.read(file);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        return TraceSummary.of(t, seconds, c.rules(), c.bandwidthBytes());
    }

    @Command(name = "summary", mixinStandardHelpOptions = true, description = "Kernel table, families, host side and symptoms of one trace (.json or .json.gz).")
    static final class Summary implements Callable<Integer> {
        @Parameters(paramLabel = "FILE") Path file;

        @Mixin Common common;

        @Override public Integer call() {
            common.check();
            TraceSummary s = summarise(file, common);
            if (common.json) {
                System.out.println(Json.write(s));
                return 0;
            }
            System.out.println(TraceText.summary(s, common.top));
            return 0;
        }
    }

    @Command(name = "diff", mixinStandardHelpOptions = true, description = "Two traces by family and by kernel (B - A): where compile saved or cost time.")
    static final class Diff implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "A") Path a;

        @Parameters(index = "1", paramLabel = "B") Path b;

        @Mixin Common common;

        @Option(names = "--chart", description = "write a family chart (PNG and SVG) to this path without extension") Path chart;

        @Override public Integer call() {
            common.check();
            TraceDiff d = TraceDiff.of(summarise(a, common), summarise(b, common));
            if (chart != null) Charts.save(TraceCharts.families(d), chart);
            if (common.json) System.out.println(Json.write(d));
            else System.out.println(TraceText.diff(d, common.top));
            return 0;
        }
    }
}
