package gluelab.cli;

import gluelab.devlog.Devlog;
import picocli.CommandLine.*;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "devlog", mixinStandardHelpOptions = true, description = "Append an entry to a devlog, or print it.")
public final class DevlogCommand implements Callable<Integer> {
    @Option(names = "--file", defaultValue = "out/devlog.md", description = "devlog file (default: ${DEFAULT-VALUE})") Path file;

    @Option(names = "--kind", defaultValue = "note", description = "measurement, decision, dead_end, feedback, note (default: ${DEFAULT-VALUE})") String kind;

    @Parameters(arity = "0..*", paramLabel = "TEXT", description = "entry text; none prints the devlog") List<String> text;

    @Override public Integer call() {
        Devlog log = new Devlog(file);
        if (text == null || text.isEmpty()) {
            for (var e : log.read()) System.out.println(e.at() + " [" + e.kind().name().toLowerCase() + "] " + e.text());
            return 0;
        }
        Devlog.Kind k;
        try {
            k = Devlog.Kind.valueOf(kind.trim().toUpperCase());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown devlog kind '" + kind + "'; known: measurement, decision, dead_end, feedback, note");
        }
        log.append(k, String.join(" ", text));
        return 0;
    }
}
