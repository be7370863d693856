package gluelab.cli;

/** What the help says about where experiments live and which environment variables gluelab reads (picocli takes only constants). */
final class EnvironmentHelp {
    private EnvironmentHelp() {}

    /** The description of every --experiments-root option, in the order ExperimentFolder.defaultRoot() tries them. */
    static final String EXPERIMENTS_ROOT = "folder of experiments (default: $GLUELAB_EXPERIMENTS; else out/experiments under $GLUELAB_HOME; "
            + "else out/experiments under the repository root holding the working directory)";

    /** The footer of the commands that read or write experiments. */
    static final String[] FOOTER = {"", "Environment:",
            "  GLUELAB_HOME         experiments live in $GLUELAB_HOME/out/experiments (else",
            "                       in out/experiments under the repository root holding the",
            "                       working directory); JupyterLab and `gluelab run` too",
            "  GLUELAB_EXPERIMENTS  the folder of experiments itself (before GLUELAB_HOME;",
            "                       --experiments-root comes before both)",
            "  GLUELAB_PYTHON       the Python with torch (after --python)"};
}
