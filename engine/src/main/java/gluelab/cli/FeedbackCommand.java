package gluelab.cli;

import gluelab.devlog.Devlog;
import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.SkillFeedback;
import gluelab.workflow.stack.ChangeStack;
import picocli.CommandLine.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "feedback", mixinStandardHelpOptions = true,
        description = "Skill feedback (step 11): proposed additions to the method from a devlog's dead ends, feedback and tagged decisions, and from a change stack's rejected ideas, host-time wins and graph budgets.")
public final class FeedbackCommand implements Callable<Integer> {
    @Option(names = "--devlog", paramLabel = "FILE", description = "the effort's devlog") Path devlog;

    @Option(names = "--stack", paramLabel = "FILE", description = "the change stack (stack.json)") Path stack;

    @Option(names = "--out", paramLabel = "FILE", description = "write the list here (e.g. feedback.md); default: print it") Path out;

    @Override public Integer call() {
        if (devlog == null && stack == null) throw new IllegalArgumentException("give --devlog FILE, --stack FILE or both");
        if (devlog != null && !Files.isRegularFile(devlog)) throw new IllegalArgumentException("no such devlog: " + devlog);
        if (stack != null && !Files.isRegularFile(stack)) throw new IllegalArgumentException("no such change stack: " + stack);
        PathOptions.notAnInput(out, "--out", devlog, stack);
        List<Devlog.Entry> entries = devlog == null ? List.of() : new Devlog(devlog).read();
        ChangeStack s = stack == null ? null : ChangeStack.load(stack);
        List<FeedbackItem> items = SkillFeedback.collect(entries, s, List.of(), List.of());
        if (out == null) System.out.print(SkillFeedback.markdown(items));
        else {
            SkillFeedback.write(out, items);
            System.err.println("wrote " + out + " (" + items.size() + " item(s))");
        }
        return 0;
    }
}
