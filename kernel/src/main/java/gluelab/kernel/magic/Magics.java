package gluelab.kernel.magic;

import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Helpers of the magics: words of a magic line (as a shell splits them: whitespace, quotes group) and picocli parsing. */
public final class Magics {
    private Magics() {}

    /**
     * Parses {@code args} into a picocli {@code command} object: its usage when --help was asked
     * (the magic shows it), else empty; a bad option is a one-line error naming the magic.
     */
    public static Optional<String> parse(String magic, Object command, List<String> args) {
        CommandLine cl = new CommandLine(command);
        try {
            cl.parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException("%" + magic + ": " + e.getMessage() + " (see %" + magic + " --help)", e);
        }
        return cl.isUsageHelpRequested() ? Optional.of(cl.getUsageMessage(CommandLine.Help.Ansi.OFF)) : Optional.empty();
    }

    public static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) quote = 0;
                else cur.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                any = true;
            } else if (Character.isWhitespace(c)) {
                if (any || !cur.isEmpty()) out.add(cur.toString());
                cur.setLength(0);
                any = false;
            } else {
                cur.append(c);
                any = true;
            }
        }
        if (quote != 0) throw new IllegalArgumentException("unterminated quote in: " + line);
        if (any || !cur.isEmpty()) out.add(cur.toString());
        return out;
    }

    /** A path, or a glob in its last part ({@code lib/*.jar}), as the files it names; none found is an error naming the pattern. */
    public static List<java.nio.file.Path> globbed(String pattern) {
        java.nio.file.Path p = java.nio.file.Path.of(pattern);
        String last = p.getFileName() == null ? "" : p.getFileName().toString();
        if (!last.contains("*") && !last.contains("?")) {
            if (!java.nio.file.Files.exists(p)) throw new IllegalArgumentException("no such jar or folder: " + pattern);
            return List.of(p);
        }
        java.nio.file.Path dir = p.getParent() == null ? java.nio.file.Path.of(".") : p.getParent();
        var matcher = dir.getFileSystem().getPathMatcher("glob:" + last);
        List<java.nio.file.Path> out = new ArrayList<>();
        try (var s = java.nio.file.Files.list(dir)) {
            s.filter(f -> matcher.matches(f.getFileName())).sorted().forEach(out::add);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot list " + dir + " for " + pattern + ": " + e.getMessage(), e);
        }
        if (out.isEmpty()) throw new IllegalArgumentException("no files match " + pattern);
        return out;
    }
}
