package gluelab.cli;

import gluelab.record.Environment;
import picocli.CommandLine.IVersionProvider;

/** What {@code --version} prints, on the top command and every subcommand (plug-ins' included). */
public final class GluelabVersion implements IVersionProvider {
    @Override public String[] getVersion() { return new String[]{"gluelab " + Environment.VERSION}; }
}
