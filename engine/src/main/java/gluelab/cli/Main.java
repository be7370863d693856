package gluelab.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

@Command(name = "gluelab", mixinStandardHelpOptions = true, versionProvider = GluelabVersion.class,
        description = "Time the glue ops of a transformer layer against their bandwidth floor and rank what is worth fixing.",
        subcommands = {DemoCommand.class, BenchCommand.class, CalibrateCommand.class, ReportCommand.class, CompareCommand.class,
                SpecsCommand.class, OpsCommand.class, FloorCommand.class, DevlogCommand.class, BundleCommand.class, TraceCommand.class, NcuCommand.class,
                CompileLogCommand.class, TorchCommand.class, TuneCommand.class, MergeCommand.class, SweepCommand.class,
                ExperimentCommand.class, ModelCommand.class, ConfirmCommand.class,
                PrCommand.class, FeedbackCommand.class, DocsCommand.class, PicksCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override public void run() { spec.commandLine().usage(System.out); }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        for (CliPlugin p : ServiceLoader.load(CliPlugin.class)) p.register(cl);
        // Every subcommand lists -V, --version (mixinStandardHelpOptions); without a provider of its own it printed nothing.
        giveVersion(cl);
        // The environment decides where experiments live; the commands that read or write them say how.
        cl.getCommandSpec().usageMessage().footer(EnvironmentHelp.FOOTER);
        for (String name : List.of("experiment", "model", "confirm")) footer(cl.getSubcommands().get(name));
        // picocli skips its unmatched-argument check when --help is given; "gluelab no-such-command --help"
        // must still say the command is unknown rather than print the general help and succeed.
        cl.setExecutionStrategy(parseResult -> {
            for (CommandLine.ParseResult p = parseResult; p != null; p = p.subcommand()) {
                if (!p.unmatched().isEmpty()) throw new CommandLine.UnmatchedArgumentException(p.commandSpec().commandLine(), p.unmatched());
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setParameterExceptionHandler(Main::badArguments);
        cl.setExecutionExceptionHandler((ex, line, parse) -> {
            boolean badInput = ex instanceof IllegalArgumentException;
            // The whole command path ("gluelab torch versions"), not the leaf name alone.
            line.getErr().println(line.getCommandSpec().qualifiedName() + ": error: " + ex.getMessage());
            if (!badInput && System.getenv("GLUELAB_DEBUG") != null) ex.printStackTrace(line.getErr());
            return badInput ? 2 : 1;
        });
        return cl;
    }

    /**
     * A bad option value or an unknown name: one line naming it, the nearest known names, and where
     * help is; not the command's whole usage, which buried the one line that mattered.
     */
    private static int badArguments(CommandLine.ParameterException ex, String[] args) {
        CommandLine line = ex.getCommandLine();
        String command = line.getCommandSpec().qualifiedName();
        PrintWriter err = line.getErr();
        err.println(command + ": error: " + ex.getMessage());
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String typed = u.getUnmatched().getFirst();
            List<String> known = new ArrayList<>(line.getSubcommands().keySet());
            if (typed.startsWith("-")) line.getCommandSpec().options().forEach(o -> known.addAll(List.of(o.names())));
            List<String> near = Suggestions.near(typed, known);
            if (!near.isEmpty()) err.println("did you mean: " + String.join(", ", near) + "?");
        }
        err.println("try '" + command + " --help'");
        return 2;
    }

    private static void footer(CommandLine cl) {
        cl.getCommandSpec().usageMessage().footer(EnvironmentHelp.FOOTER);
        cl.getSubcommands().values().forEach(Main::footer);
    }

    private static void giveVersion(CommandLine cl) {
        cl.getCommandSpec().versionProvider(new GluelabVersion());
        cl.getSubcommands().values().forEach(Main::giveVersion);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
