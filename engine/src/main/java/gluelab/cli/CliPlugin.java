package gluelab.cli;

import picocli.CommandLine;

/** Lets other modules (the Jupyter kernel) add subcommands, found with ServiceLoader. */
public interface CliPlugin {
    void register(CommandLine root);
}
