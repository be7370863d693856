package gluelab.workflow.modelwriteup;

import gluelab.devlog.Devlog;
import gluelab.model.ModelSpec;
import gluelab.ops.Pass;
import gluelab.workflow.confirm.Confirmation;
import gluelab.workflow.confirm.ModelConfirmResult;
import gluelab.workflow.confirm.ModelConfirmation;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.Interaction;
import gluelab.workflow.feedback.SkillFeedback;
import gluelab.workflow.graphbudget.BudgetResult;
import gluelab.workflow.graphbudget.RegionBudget;
import gluelab.workflow.model.ModelBaselinesStep;
import gluelab.workflow.model.ModelCheckStep;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.model.ModelFixStep;
import gluelab.workflow.model.ModelPlan;
import gluelab.workflow.model.ModelProfileStep;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.Conditions;
import gluelab.workflow.stack.GraphCount;
import gluelab.workflow.writeup.Writeup;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Steps 09-11 on a model experiment: the change stack from step 07's confirmation of the model's
 * fixes ({@link ModelChanges}), the findings doc with each step's own tables and one PR text per
 * change (each checked by every rule of {@code pr check} before anything is written), and the skill
 * feedback from the devlog, the stack, step 05's interaction table and step 06's graph counts.
 */
public final class ModelWriteup {
    private ModelWriteup() {}

    /** Step 09: the stack of the model's confirmed fixes, saved as the experiment's stack.json (replacing the one before); marks the step done. */
    public static ChangeStack stack(ExperimentFolder ex, String device, ModelSpec spec, String commit) {
        try (var running = ex.running(Step.STACK)) {
            ExperimentPlan plan = ex.plan();
            var s = plan.modelSubject();
            ModelConfirmResult confirmed = confirmed(ex);
            if (confirmed.processesOk() == 0)
                throw new IllegalArgumentException("experiment '" + ex.name() + "': no process of step 07's confirmation finished (" + confirmed.summary() + "); run `gluelab model confirm " + ex.name() + "` again");
            var dtype = ModelPlan.inputs(s, spec, plan.tokens().getFirst()).getFirst().dtype();
            Conditions conditions = new Conditions(device, ModelPlan.entry(s).shortName(), dtype, List.of(Pass.FORWARD, Pass.BACKWARD),
                    "whole fwd+bwd steps, each side the median of the processes within " + Math.round(100 * Confirmation.WITHIN) + "% of the best", confirmed.processesOk(),
                    fewer(confirmed), (int) confirmed.rows().stream().filter(ModelConfirmResult.Row::measured).count());
            ModelChanges.Inputs in = new ModelChanges.Inputs(s, plan.tokens(), confirmed, ex.has(Step.FIX) ? ModelFixStep.load(ex) : null,
                    ex.has(Step.PROFILE_DIFF) ? ModelProfileStep.load(ex) : null, ex.has(Step.CORRECTNESS) ? ModelCheckStep.load(ex) : null,
                    ex.has(Step.GRAPH_BUDGET) ? RegionBudget.latest(ex) : null, commit == null || commit.isBlank() ? "working-tree" : commit.strip());
            ChangeStack stack = ModelChanges.stack(conditions, in);
            stack.save(ex.stackFile());
            Devlog log = ex.devlog();
            for (var c : stack.changes()) log.decision("stack: " + c.id() + " at position " + stack.position(c.id()) + " of " + stack.changes().size() + ", "
                    + c.headline().describe() + "; code " + c.code().stream().map(x -> x.where()).toList());
            for (var r : stack.rejected()) log.note("stack: rejected " + r.describe());
            for (String n : stack.notTested()) log.note("stack: " + n);
            ex.done(Step.STACK, List.of(), Map.of("stack", ExperimentFolder.STACK_FILE), stack.changes().size() + " change(s) from " + confirmed.id() + ", " + stack.orderedBy());
            return stack;
        }
    }

    /** The measured rows whose smaller side kept fewer processes than finished: "1 for rope at 32 tokens, normal launch". */
    static List<Conditions.Fewer> fewer(ModelConfirmResult confirmed) {
        return confirmed.rows().stream().filter(r -> r.measured() && r.kept() < confirmed.processesOk())
                .map(r -> new Conditions.Fewer(r.fix() + " at " + gluelab.workflow.stack.Delta.tokens(r.tokens()) + " tokens, " + ModelChanges.launch(r.replay()), r.kept())).toList();
    }

    /** Step 10: findings.md with the steps' tables, pr/ID.md with its chart per change (every text checked first); marks the step done. */
    public static Writeup.Written findings(ExperimentFolder ex) {
        try (var running = ex.running(Step.FINDINGS)) {
            ChangeStack stack = requireStack(ex);
            Writeup.Written w = Writeup.write(ex.dir(), stack, null, ModelFindings.sections(ex, confirmed(ex), ex.has(Step.PROFILE_DIFF) ? ModelProfileStep.load(ex) : null), collect(ex, stack));
            Map<String, String> files = new LinkedHashMap<>();
            files.put("findings", ex.dir().relativize(w.findings()).toString());
            files.put("pr", ExperimentFolder.PR_DIR);
            ex.devlog().note("findings doc and " + w.prs().size() + " PR text(s) of the model written; rules checker: "
                    + (w.violations().isEmpty() ? "all pass" : w.violations().size() + " violation(s)"));
            ex.done(Step.FINDINGS, List.of(), files, w.prs().size() + " PR text(s), " + w.violations().size() + " rule violation(s)");
            return w;
        }
    }

    /** Step 11: the skill feedback, written to feedback.md; marks the step done. */
    public static List<FeedbackItem> feedback(ExperimentFolder ex) {
        try (var running = ex.running(Step.FEEDBACK)) {
            ChangeStack stack = requireStack(ex);
            List<FeedbackItem> items = collect(ex, stack);
            SkillFeedback.write(ex.feedbackFile(), items);
            ex.done(Step.FEEDBACK, List.of(), Map.of("feedback", ExperimentFolder.FEEDBACK_FILE), items.size() + " proposed addition(s) to the method");
            return items;
        }
    }

    static ModelConfirmResult confirmed(ExperimentFolder ex) {
        ex.require(Step.CONFIRM);
        return ModelConfirmResult.load(ex.file(Step.CONFIRM, ModelConfirmation.FILE));
    }

    private static ChangeStack requireStack(ExperimentFolder ex) {
        ex.require(Step.STACK);
        if (!Files.isRegularFile(ex.stackFile())) throw ex.missing(Step.STACK);
        return ChangeStack.load(ex.stackFile());
    }

    /** The devlog's entries (step 08's per-row dead ends aside: the stack has one entry per wrong fix), the stack with its changes of no win, step 05's combinations (fixes alone and together) and step 06's graph counts. */
    static List<FeedbackItem> collect(ExperimentFolder ex, ChangeStack stack) {
        List<Interaction> interactions = new ArrayList<>();
        if (ex.has(Step.FIX)) {
            ModelFixResult fix = ModelFixStep.load(ex);
            for (ModelFixResult.Combination c : fix.interactions()) {
                if (c.reason().isEmpty() && Double.isFinite(c.us()) && c.us() > 0) interactions.add(Interaction.of(c.fixes(), c.tokens(), c.us()));
            }
        }
        List<GraphCount> graphs = new ArrayList<>();
        if (ex.has(Step.GRAPH_BUDGET)) RegionBudget.latest(ex).regions().forEach(g -> graphs.add(new GraphCount(g.region(), g.graphs(), g.limit())));
        var checked = ex.has(Step.CORRECTNESS) ? ModelCheckStep.load(ex) : null;
        BudgetResult budget = ex.has(Step.GRAPH_BUDGET) ? RegionBudget.latest(ex) : null;
        List<FeedbackItem> method = SkillFeedback.collect(ModelFeedback.withoutCheckRows(ex.devlog().read(), checked), stack, interactions, graphs);
        List<FeedbackItem> items = new ArrayList<>(ModelFeedback.withWrongFixesNamed(ModelFeedback.withoutPlainLimitItems(method, budget), stack, checked));
        items.addAll(ModelFeedback.noWins(stack));
        if (ex.has(Step.BASELINES)) items.addAll(ModelFeedback.slowerThanEager(ModelBaselinesStep.load(ex)));
        if (ex.has(Step.FIX)) items.addAll(ModelFeedback.slowerFixes(ModelFixStep.load(ex)));
        if (budget != null) items.addAll(ModelFeedback.overTheLimit(budget));
        return items;
    }
}
