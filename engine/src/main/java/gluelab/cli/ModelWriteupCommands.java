package gluelab.cli;

import gluelab.files.Json;
import gluelab.lab.Gluelab;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.writeup.Violation;
import gluelab.workflow.writeup.StackSummary;
import picocli.CommandLine.*;

import java.util.concurrent.Callable;

/** {@code gluelab model stack|findings|feedback}: steps 09-11 on the analyst's model. */
final class ModelWriteupCommands {
    private ModelWriteupCommands() {}

    @Command(name = "stack", mixinStandardHelpOptions = true,
            description = "Step 09: the change stack (stack.json) from step 07's confirmed fixes: a change per fix with its before -> after and caveats, "
                    + "correctness, graph count, the profile's source lines and the files and functions it edits.")
    static final class Stack implements Callable<Integer> {
        @Mixin ModelCommand.Common common;

        @Option(names = "--commit", defaultValue = "working-tree", description = "the commit that carries the change in your model code (default: ${DEFAULT-VALUE})")
        String commit;

        @Override public Integer call() {
            ExperimentFolder ex = common.experiment();
            try (var running = ex.running(gluelab.workflow.experiment.Step.STACK); Gluelab lab = Gluelab.open(ex.plan().device())) {
                var stack = lab.changeStack(ex, commit);
                System.out.println(common.json ? Json.write(stack) : StackSummary.text(stack));
            }
            return 0;
        }
    }

    @Command(name = "findings", mixinStandardHelpOptions = true,
            description = "Step 10: findings.md (the model's baselines, ranking per source line, fixes, graph budget, confirmation and correctness) and a PR text "
                    + "per change in pr/, each checked by every rule of `gluelab pr check`; exit 1 when a rule is broken.")
    static final class Findings implements Callable<Integer> {
        @Mixin ModelCommand.Common common;

        @Override public Integer call() {
            ExperimentFolder ex = common.experiment();
            try (var running = ex.running(gluelab.workflow.experiment.Step.FINDINGS); Gluelab lab = Gluelab.open(ex.plan().device())) {
                var w = lab.findings(ex);
                System.out.println(common.json ? Json.write(w) : "wrote " + w.findings() + "\n" + String.join("\n", w.prs().stream().map(p -> "wrote " + p).toList()));
                for (Violation v : w.violations()) System.out.println(v);
                return w.violations().isEmpty() ? 0 : 1;
            }
        }
    }

    @Command(name = "feedback", mixinStandardHelpOptions = true,
            description = "Step 11: the skill feedback (feedback.md) from the devlog, the stack, step 05's interactions and step 06's graph counts.")
    static final class Feedback implements Callable<Integer> {
        @Mixin ModelCommand.Common common;

        @Override public Integer call() {
            ExperimentFolder ex = common.experiment();
            try (var running = ex.running(gluelab.workflow.experiment.Step.FEEDBACK); Gluelab lab = Gluelab.open(ex.plan().device())) {
                var items = lab.feedback(ex);
                System.out.println(common.json ? Json.write(items) : gluelab.workflow.feedback.SkillFeedback.markdown(items).stripTrailing());
            }
            return 0;
        }
    }
}
