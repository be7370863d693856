package gluelab.cli;

import gluelab.devlog.Devlog;
import picocli.CommandLine.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "devlog", mixinStandardHelpOptions = true, description = "Append an entry to a devlog, or print it (all entries, or those of one --kind).")
public final class DevlogCommand implements Callable<Integer> {
    /** The one devlog whose folder this command may create. */
    static final Path DEFAULT_FILE = Path.of("out", "devlog.md");

    @Option(names = "--file", description = "devlog file; its folder must exist, but for the default's (default: out/devlog.md)") Path file;

    @Option(names = "--kind", description = "measurement, decision, dead_end, feedback, note: the new entry's kind (default: note), or with no TEXT the kind of entries to print")
    String kind;

    @Parameters(arity = "0..*", paramLabel = "TEXT", description = "entry text; none prints the devlog") List<String> text;

    @Override public Integer call() {
        Path given = file == null ? DEFAULT_FILE : file;
        Devlog.Kind k = kind == null ? null : Devlog.Kind.parse(kind);
        Devlog log = new Devlog(given);
        if (text == null || text.isEmpty()) {
            print(log, k);
            return 0;
        }
        Path folder = log.file().getParent();
        if (!Files.isDirectory(folder) && !log.file().equals(DEFAULT_FILE.toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("devlog folder " + folder + " does not exist (--file " + given + "); create it or name another file");
        }
        Devlog.Kind entry = k == null ? Devlog.Kind.NOTE : k;
        log.append(entry, String.join(" ", text));
        System.out.println("appended [" + entry.id() + "] to " + log.file());
        return 0;
    }

    private static void print(Devlog log, Devlog.Kind only) {
        if (!Files.exists(log.file())) throw new IllegalArgumentException("no devlog at " + log.file() + " (append to it with: gluelab devlog [--file F] TEXT)");
        List<Devlog.Entry> all = log.read();
        List<Devlog.Entry> shown = all.stream().filter(e -> only == null || e.kind() == only).toList();
        for (var e : shown) System.out.println(e.at() + " [" + e.kind().id() + "] " + e.text());
        if (shown.isEmpty()) {
            System.out.println(only == null ? "no entries in " + log.file()
                    : "no [" + only.id() + "] entries in " + log.file() + " (" + all.size() + " of other kinds)");
        }
    }
}
