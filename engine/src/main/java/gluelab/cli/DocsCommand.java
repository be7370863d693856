package gluelab.cli;

import gluelab.figures.BenchmarksPage;
import gluelab.files.AtomicFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "docs", mixinStandardHelpOptions = true, description = "Generated documentation pages.",
        subcommands = DocsCommand.Benchmarks.class)
public final class DocsCommand implements Runnable {
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override public void run() { spec.commandLine().usage(System.out); }

    @Command(name = "benchmarks", mixinStandardHelpOptions = true,
            description = "Write docs/benchmarks.md from the figure files in docs/benchmarks/ (one current table per question).")
    static final class Benchmarks implements Callable<Integer> {
        @Option(names = "--data", description = "the figure folder: index.json and one CSV per question (default: ${DEFAULT-VALUE})")
        Path data = Path.of("docs/benchmarks");
        @Option(names = "--out", description = "the page to write (default: ${DEFAULT-VALUE})")
        Path out = Path.of("docs/benchmarks.md");
        @Option(names = "--check", description = "write nothing; exit 1 when the page differs from what the data makes")
        boolean check;

        @Override public Integer call() throws IOException {
            String page = BenchmarksPage.render(data);
            if (check) {
                boolean same = Files.isRegularFile(out) && Files.readString(out).equals(page);
                System.out.println(out + (same ? ": up to date" : ": differs from " + data + "; run gluelab docs benchmarks"));
                return same ? 0 : 1;
            }
            AtomicFiles.write(out, page);
            System.out.println("wrote " + out + " (" + page.lines().count() + " lines) from " + data);
            return 0;
        }
    }
}
