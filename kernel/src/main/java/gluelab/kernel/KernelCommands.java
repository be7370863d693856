package gluelab.kernel;

import gluelab.cli.CliPlugin;
import gluelab.kernel.install.KernelSpecs;
import gluelab.kernel.runner.NotebookRunner;
import picocli.CommandLine;
import picocli.CommandLine.*;

import java.nio.file.Path;
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

    static final class Where {
        @Option(names = "--user", description = "the user's Jupyter data folder (the default)") boolean user;

        @Option(names = "--prefix", description = "PREFIX/share/jupyter/kernels") Path prefix;

        @Option(names = "--jupyter-path", description = "DIR/kernels") Path jupyterPath;

        Path dir() { return KernelSpecs.kernelsDir(user ? "user" : null, prefix, jupyterPath); }
    }

    @Command(name = "install", mixinStandardHelpOptions = true, description = "Write the \"Java (gluelab)\" kernelspec.")
    static final class Install implements Callable<Integer> {
        @Mixin Where where;

        @Override public Integer call() {
            System.out.println("installed kernelspec " + KernelSpecs.NAME + " in " + KernelSpecs.install(where.dir()));
            return 0;
        }
    }

    @Command(name = "uninstall", mixinStandardHelpOptions = true, description = "Remove the kernelspec.")
    static final class Uninstall implements Callable<Integer> {
        @Mixin Where where;

        @Override public Integer call() {
            boolean removed = KernelSpecs.uninstall(where.dir());
            System.out.println(removed ? "removed " + where.dir().resolve(KernelSpecs.NAME) : "no gluelab kernelspec in " + where.dir());
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List installed gluelab kernelspecs.")
    static final class ListSpecs implements Callable<Integer> {
        @Override public Integer call() {
            List<Path> found = KernelSpecs.list();
            if (found.isEmpty()) System.out.println("no gluelab kernelspec installed; run 'gluelab kernel install'");
            found.forEach(p -> System.out.println(p));
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

    @Command(name = "run", mixinStandardHelpOptions = true, description = "Execute notebooks headless in a fresh kernel each; write the executed notebooks.")
    static final class Run implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "NOTEBOOK") List<Path> notebooks;

        @Option(names = "--out", defaultValue = "out/notebooks", description = "folder for executed notebooks (default: ${DEFAULT-VALUE})") Path out;

        @Option(names = {"-p", "--parameter"}, description = "name=value injected after the cell tagged 'parameters'") Map<String, String> parameters = new LinkedHashMap<>();

        @Override public Integer call() {
            for (Path nb : notebooks) {
                NotebookRunner.Result r = NotebookRunner.run(nb, out, parameters);
                System.out.println(r.summary());
                if (!r.ok()) return 1;
            }
            return 0;
        }
    }
}
