package gluelab.kernel;

import gluelab.cli.Main;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The gluelab commands in README.md and docs/ (every line of a fenced block that starts with
 * {@code bin/gluelab} or {@code gluelab}) still work: each one parses (its subcommands and options exist),
 * the {@code --help} of every subcommand they name runs, and the cheap ones ({@link #CHEAP}) run for real on
 * the CPU from the repository root. A failure names the file and line of the command.
 *
 * <p>Usage syntax in the docs is read as a user would: {@code [--json]} is optional (parsed with it, run
 * without it), {@code cpu|cuda} takes its first alternative, and a {@code #} starts a comment. A word in
 * capitals ({@code FILE}, {@code RUN.json.gz}) or in angle brackets ({@code out/<run>}) is a placeholder for
 * the reader's own input: such a command is parsed, not run, so every cheap command must also be shown
 * once on a real input (a shipped sample).
 */
class DocCommandsTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Subcommands cheap enough to run on the CPU in a test: no measurement, no torch, nothing written. */
    static final Set<String> CHEAP = Set.of("ops", "floor", "specs", "pr rules", "trace summary", "compile-log", "docs benchmarks --check");
    static final Pattern PLACEHOLDER = Pattern.compile("(?:[A-Z][A-Z0-9_]*(?:\\..*)?)|.*<[^>]+>.*");
    static final Pattern COMMAND = Pattern.compile("^(?:\\$ )?((?:[A-Z_]+=\\S+\\s+)*)(?:\\S*/)?gluelab\\s+(.*)$");

    record DocCommand(Path file, int line, Map<String, String> env, String text) {
        String where() { return ROOT.relativize(file) + ":" + line + ": gluelab " + text; }
        /** Brackets dropped, their contents kept: every optional part is checked by the parser. */
        List<String> parseForm() { return tokens(text.replace("[", " ").replace("]", " ")); }
        /** Optional parts left out: the command as it runs without them. */
        List<String> runForm() {
            String s = text;
            for (String t; !(t = s.replaceAll("\\[[^\\[\\]]*]", " ")).equals(s); ) s = t;
            return tokens(s);
        }
    }

    static List<Path> docs() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("docs/benchmarks/README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    static List<DocCommand> commands() throws IOException {
        List<DocCommand> out = new ArrayList<>();
        for (Path f : docs()) {
            List<String> lines = Files.readAllLines(f);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i).strip();
                if (l.startsWith("```")) { fenced = !fenced; continue; }
                if (!fenced) continue;
                int first = i;
                while (l.endsWith("\\") && i + 1 < lines.size()) l = l.substring(0, l.length() - 1) + " " + lines.get(++i).strip();
                Matcher m = COMMAND.matcher(l);
                if (!m.matches()) continue;
                Map<String, String> env = new LinkedHashMap<>();
                for (String a : m.group(1).trim().split("\\s+")) if (!a.isEmpty()) env.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
                out.add(new DocCommand(f, first + 1, env, m.group(2)));
            }
        }
        return out;
    }

    /** Shell-like words: quotes group, an unquoted #, ;, &&, | or > ends the command, a|b is its first alternative. */
    static List<String> tokens(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean word = false;
        char quote = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) { if (c == quote) quote = 0; else w.append(c); continue; }
            if (c == '\'' || c == '"') { quote = c; word = true; continue; }
            if (Character.isWhitespace(c)) { if (word) out.add(w.toString()); w.setLength(0); word = false; continue; }
            if (!word && (c == '#' || c == ';' || c == '&' || c == '|' || c == '>')) break;
            w.append(c); word = true;
        }
        if (word) out.add(w.toString());
        List<String> words = new ArrayList<>();
        for (String t : out) if (!t.equals("...")) words.add(t.contains("|") && !t.startsWith("-") ? t.substring(0, t.indexOf('|')) : t);
        return words;
    }

    /** The subcommand path a parse reached ("trace summary"), and the parse itself. */
    static String subcommands(CommandLine.ParseResult r) {
        List<String> names = new ArrayList<>();
        for (CommandLine.ParseResult p = r.subcommand(); p != null; p = p.subcommand()) names.add(p.commandSpec().name());
        return String.join(" ", names);
    }

    @Test
    void theDocsHoldCommands() throws IOException {
        // Guards the extractor: one that found nothing would pass everything.
        List<DocCommand> all = commands();
        assertTrue(all.size() > 40, "only " + all.size() + " commands found");
        assertTrue(all.stream().anyMatch(c -> c.file().endsWith("README.md") && c.text().startsWith("ops")), all.toString());
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void everyCommandParsesAndItsHelpRuns() throws IOException {
        List<String> failures = new ArrayList<>();
        Set<String> helped = new TreeSet<>();
        for (DocCommand c : commands()) {
            try {
                String path = subcommands(Main.commandLine().parseArgs(c.parseForm().toArray(String[]::new)));
                if (!path.isEmpty() && helped.add(path)) {
                    List<String> help = new ArrayList<>(List.of(path.split(" ")));
                    help.add("--help");
                    Output o = inProcess(help);
                    if (o.code != 0 || !o.text.contains("Usage: gluelab " + path))
                        failures.add(c.where() + ": `gluelab " + path + " --help` exited " + o.code + ": " + o.text.lines().findFirst().orElse(""));
                }
            } catch (CommandLine.ParameterException e) {
                failures.add(c.where() + ": " + e.getMessage());
            }
        }
        assertEquals(List.of(), failures, "commands in the docs that gluelab does not take");
        assertTrue(helped.contains("bench") && helped.contains("trace summary"), helped.toString());
    }

    @Test @Tag("slow") // one JVM per cheap command
    void theCheapCommandsRunOnTheCpu() throws Exception {
        List<String> failures = new ArrayList<>();
        int ran = 0;
        for (DocCommand c : commands()) {
            List<String> args = c.runForm();
            String path = subcommands(Main.commandLine().parseArgs(args.toArray(String[]::new)));
            if (!CHEAP.contains(path) && !CHEAP.contains(String.join(" ", args))) continue;
            if (args.stream().anyMatch(a -> PLACEHOLDER.matcher(a).matches())) continue;
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--sun-misc-unsafe-memory-access=allow", "--add-modules", "jdk.incubator.vector", "-Djava.awt.headless=true",
                    "-Dslf4j.internal.verbosity=ERROR", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
            cmd.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(ROOT.toFile()).redirectErrorStream(true);
            pb.environment().putAll(c.env());
            pb.environment().put("GLUELAB_CACHE", Files.createTempDirectory("doc-commands").toString());
            Process p = pb.start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean done = p.waitFor(120, TimeUnit.SECONDS);
            if (!done) { p.destroyForcibly(); failures.add(c.where() + ": did not finish in 120 s"); continue; }
            ran++;
            if (p.exitValue() != 0) failures.add(c.where() + ": exit " + p.exitValue() + ": " + output.strip().lines().reduce((a, b) -> b).orElse(""));
        }
        assertEquals(List.of(), failures, "cheap commands in the docs that fail");
        assertTrue(ran >= 8, "only " + ran + " cheap commands ran");
    }

    record Output(int code, String text) {}

    /** Runs a command in this JVM with its standard output and error captured (for --help, which only prints). */
    static synchronized Output inProcess(List<String> args) {
        PrintStream out = System.out, err = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            System.setErr(capture);
            CommandLine cl = Main.commandLine();
            cl.setOut(new java.io.PrintWriter(capture, true));
            cl.setErr(new java.io.PrintWriter(capture, true));
            int code = cl.execute(args.toArray(String[]::new));
            return new Output(code, buf.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}
