package gluelab.cli;

import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.writeup.PrChecker;
import gluelab.workflow.writeup.PrRule;
import gluelab.workflow.writeup.PrText;
import gluelab.workflow.writeup.Violation;
import picocli.CommandLine.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "pr", mixinStandardHelpOptions = true,
        description = "PR texts of a change stack: write one per stack entry, check any text against the PR rules.",
        subcommands = {PrCommand.Check.class, PrCommand.Write.class, PrCommand.Rules.class})
public final class PrCommand implements Runnable {
    @Spec Model.CommandSpec spec;

    @Override public void run() { spec.commandLine().usage(System.out); }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Check PR texts against every rule (`gluelab pr rules` lists them). Prints FILE:LINE: [rule] message per violation; exit 1 when any.")
    static final class Check implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "FILE", description = "markdown PR texts; chart links are checked beside each") List<Path> files;

        @Option(names = "--stack", paramLabel = "STACK", description = "the change stack the numbers come from, to check each quote carries its caveat"
                + " (default: stack.json in the text's folder or the one above it, when there is one)")
        Path stackFile;

        @Override public Integer call() {
            for (Path f : files) if (!Files.isRegularFile(f)) throw new IllegalArgumentException("no such PR text: " + f);
            if (stackFile != null && !Files.isRegularFile(stackFile)) throw new IllegalArgumentException("no such change stack: " + stackFile);
            List<Violation> all = new ArrayList<>();
            for (Path f : files) all.addAll(PrChecker.check(f, stackFor(f)));
            for (Violation v : all) System.out.println(v);
            System.err.println(all.isEmpty() ? "gluelab pr check: " + files.size() + " text(s) follow every rule"
                    : "gluelab pr check: " + all.size() + " violation(s) in " + all.stream().map(Violation::source).distinct().count() + " of " + files.size() + " text(s)");
            return all.isEmpty() ? 0 : 1;
        }

        private ChangeStack stackFor(Path text) {
            if (stackFile != null) return ChangeStack.load(stackFile);
            Path dir = text.toAbsolutePath().getParent();
            for (Path d : new Path[] {dir, dir == null ? null : dir.getParent()}) {
                if (d != null && Files.isRegularFile(d.resolve("stack.json"))) return ChangeStack.load(d.resolve("stack.json"));
            }
            return null;
        }
    }

    @Command(name = "write", mixinStandardHelpOptions = true,
            description = "Write ID.md and its chart (ID.png, ID.svg) for every entry of a change stack, then check them.")
    static final class Write implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STACK", description = "the change stack (stack.json)") Path stackFile;

        @Option(names = "--out", paramLabel = "DIR", description = "where the texts go (default: pr/ beside the stack)") Path out;

        @Override public Integer call() {
            if (!Files.isRegularFile(stackFile)) throw new IllegalArgumentException("no such change stack: " + stackFile);
            ChangeStack stack = ChangeStack.load(stackFile);
            Path dir = out != null ? out : stackFile.toAbsolutePath().getParent().resolve("pr");
            PathOptions.folder(dir, "--out");
            var texts = PrText.writeKeepingEdits(stack, dir);
            List<Path> written = texts.stream().map(gluelab.files.WrittenFiles.Written::file).toList();
            for (var t : texts) {
                if (t.beside()) System.err.println("note: " + t.kept() + " was edited since it was written and is kept; the new text is " + t.file().getFileName());
            }
            int violations = 0;
            for (Path p : written) {
                List<Violation> v = PrChecker.check(p, stack);
                violations += v.size();
                for (Violation x : v) System.out.println(x);
                System.err.println("wrote " + p + (v.isEmpty() ? "" : " (" + v.size() + " violation(s))"));
            }
            if (written.isEmpty()) System.err.println("gluelab pr write: the stack in " + stackFile + " holds no change yet");
            return violations == 0 ? 0 : 1;
        }
    }

    @Command(name = "rules", mixinStandardHelpOptions = true, description = "List the rules `pr check` enforces.")
    static final class Rules implements Callable<Integer> {
        @Override public Integer call() {
            for (PrRule r : PrRule.values()) System.out.printf("%-20s %s%n", r.id(), r.description());
            return 0;
        }
    }
}
