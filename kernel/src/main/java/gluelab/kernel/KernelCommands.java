package gluelab.kernel;

import gluelab.cli.CliPlugin;
import gluelab.kernel.install.KernelSpecs;
import gluelab.kernel.runner.NotebookRunner;
import gluelab.kernel.runner.StopSignals;
import picocli.CommandLine;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** Adds `gluelab kernel ...` and `gluelab run NOTEBOOK...` to the CLI. */
public final class KernelCommands implements CliPlugin {
    @Override public void register(CommandLine root) {
        root.addSubcommand("kernel", new CommandLine(new Kernel()).addSubcommand(new Install()).addSubcommand(new Uninstall())
                .addSubcommand(new ListSpecs()).addSubcommand(new Start()));
        root.addSubcommand("run", new Run());
    }

    @Command(name = "kernel", mixinStandardHelpOptions = true, description = "The Jupyter kernel: install, uninstall, list, start.")
    static final class Kernel implements Runnable {
        @Spec Model.CommandSpec spec;

        @Override public void run() { spec.commandLine().usage(System.out); }
    }

    /** Where the kernelspec goes: one of --user, --prefix, --jupyter-path (picocli refuses two). */
    static final class Where {
        @Option(names = "--user", description = "the user's Jupyter data folder (the default)") boolean user;

        @Option(names = "--prefix", paramLabel = "PREFIX", description = "PREFIX/share/jupyter/kernels") Path prefix;

        @Option(names = "--jupyter-path", paramLabel = "DIR", description = "DIR/kernels") Path jupyterPath;

        /** The kernels folder {@code where} names; the user's when none was given. */
        static Path dir(Where where) {
            return where == null ? KernelSpecs.kernelsDir("user", null, null)
                    : KernelSpecs.kernelsDir(where.user ? "user" : null, where.prefix, where.jupyterPath);
        }
    }

    @Command(name = "install", mixinStandardHelpOptions = true, description = "Write the \"Java (gluelab)\" kernelspec.")
    static final class Install implements Callable<Integer> {
        @ArgGroup(exclusive = true, multiplicity = "0..1") Where where;

        @picocli.CommandLine.Option(names = "--no-aot-cache", description = "Do not train the kernel's AOT cache (a JVM run of about 10 s that makes each kernel start a quarter to a third sooner).")
        boolean noAotCache;

        @Override public Integer call() {
            // A shared machine's kernelspec may be a colleague's checkout: say whose is replaced.
            KernelSpecs.replacing(Where.dir(where)).ifPresent(System.out::println);
            if (!noAotCache) System.out.println("training the kernel's AOT cache (--no-aot-cache skips it) ...");
            Path dir = KernelSpecs.install(Where.dir(where), !noAotCache, System.out::println);
            System.out.println("installed kernelspec " + KernelSpecs.NAME + " in " + dir);
            if (where != null && where.prefix != null && !KernelSpecs.list(List.of()).contains(dir.toAbsolutePath().normalize())) {
                System.out.println("note: Jupyter looks in " + where.prefix + " only when it is its Python environment's prefix; "
                        + "otherwise add " + where.prefix.resolve("share/jupyter") + " to JUPYTER_PATH ('gluelab kernel list --prefix " + where.prefix + "' shows it)");
            }
            return 0;
        }
    }

    @Command(name = "uninstall", mixinStandardHelpOptions = true, description = "Remove the kernelspec.")
    static final class Uninstall implements Callable<Integer> {
        @ArgGroup(exclusive = true, multiplicity = "0..1") Where where;

        @Override public Integer call() {
            Path dir = Where.dir(where);
            boolean removed = KernelSpecs.uninstall(dir);
            System.out.println(removed ? "removed " + dir.resolve(KernelSpecs.NAME) : "no gluelab kernelspec in " + dir);
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List installed gluelab kernelspecs (also under --prefix or --jupyter-path) and the kernel jar and java each runs.")
    static final class ListSpecs implements Callable<Integer> {
        @Option(names = "--prefix", description = "also look in PREFIX/share/jupyter/kernels") List<Path> prefixes = new ArrayList<>();

        @Option(names = "--jupyter-path", description = "also look in DIR/kernels") List<Path> jupyterPaths = new ArrayList<>();

        @Override public Integer call() {
            List<Path> extra = new ArrayList<>();
            prefixes.forEach(p -> extra.add(KernelSpecs.kernelsDir(null, p, null)));
            jupyterPaths.forEach(p -> extra.add(KernelSpecs.kernelsDir(null, null, p)));
            List<Path> found = KernelSpecs.list(extra);
            if (found.isEmpty()) System.out.println("no gluelab kernelspec installed; run 'gluelab kernel install'");
            // The checkout and java each one runs: on a shared machine, whose kernel Jupyter would start.
            found.forEach(p -> System.out.println(p + "  runs " + KernelSpecs.describe(p)));
            return 0;
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true, description = "Start the kernel on a connection file (what the kernelspec runs).")
    static final class Start implements Callable<Integer> {
        @Parameters(paramLabel = "CONNECTION_FILE") Path file;

        @Override public Integer call() throws Exception {
            KernelMain.main(new String[]{file.toString()});
            return 0;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true, description = {
            "Execute notebooks headless in a fresh kernel each; write the executed notebooks.",
            "Every notebook runs, even after one fails; the exit status is 1 if any did not complete (130/143 after SIGINT/SIGTERM).",
            "An executed notebook never replaces its input: with --out pointing at the input's folder it is written as NAME.out.ipynb."})
    static final class Run implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "NOTEBOOK") List<Path> notebooks;

        @Option(names = "--out", defaultValue = "out/notebooks", description = "folder for executed notebooks (default: ${DEFAULT-VALUE})") Path out;

        @Option(names = {"-p", "--parameter"}, paramLabel = "NAME=VALUE",
                description = {"set a parameter declared in the cell tagged 'parameters'; the value is written as the declared type (int, double, String...).",
                        "With several notebooks it goes to those that declare it (at least one must)."})
        Map<String, String> parameters = new LinkedHashMap<>();

        @Option(names = "--cell-timeout", paramLabel = "SECONDS", defaultValue = "" + NotebookRunner.DEFAULT_CELL_TIMEOUT_S,
                description = "stop a cell that runs longer, failing its notebook; 0 = no limit (default: ${DEFAULT-VALUE})")
        long cellTimeout;

        @Override public Integer call() {
            if (cellTimeout < 0) throw new IllegalArgumentException("--cell-timeout must be 0 (no limit) or a number of seconds, not " + cellTimeout);
            // Every notebook is read and checked, and its parameters placed, before any cell runs.
            List<NotebookRunner> runs = NotebookRunner.prepareAll(notebooks, out, parameters);
            try (StopSignals signals = StopSignals.install()) {
                int failed = 0;
                for (int i = 0; i < runs.size(); i++) {
                    NotebookRunner run = runs.get(i);
                    NotebookRunner.Result r;
                    signals.current(run);
                    try {
                        r = run.execute(cellTimeout);
                    } finally {
                        signals.current(null);
                    }
                    System.out.println(r.summary());
                    if (!r.ok()) failed++;
                    if (signals.received() != null) {
                        for (int j = i + 1; j < runs.size(); j++) System.out.println("NOT RUN: " + notebooks.get(j) + " (" + signals.received() + ")");
                        return signals.exitStatus();
                    }
                }
                if (runs.size() > 1) System.out.println(failed == 0 ? "all " + runs.size() + " notebooks ok" : failed + " of " + runs.size() + " notebooks failed");
                return failed == 0 ? 0 : 1;
            }
        }
    }
}
