package gluelab.workflow.modelwriteup;

import gluelab.devlog.Devlog;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelTree;
import gluelab.workflow.correctness.CheckRow;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.FeedbackKind;
import gluelab.workflow.feedback.SkillFeedback;
import gluelab.workflow.graphbudget.BudgetResult;
import gluelab.workflow.graphbudget.RegionGraphs;
import gluelab.workflow.model.ModelBaselinesStep;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.stack.Change;
import gluelab.workflow.stack.ChangeStack;
import gluelab.workflow.stack.Delta;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The model's part of step 11 beside {@link gluelab.workflow.feedback.SkillFeedback}: a fix is one
 * finding, not one per tensor. Step 08 logs a dead end per failing row; those of the fixes it checked
 * give way to the stack's one rejected entry per wrong fix (its count of failing rows and the worst).
 * A change step 07 found no win at any token count is a negative result of its own. The model's own numbers
 * give surprises too, one item per row with its figure and noise: a compiled tree slower than eager (step 01),
 * a fix slower than the model as written (step 05), a region past the recompile limit (step 06). A fix step 08
 * found wrong failed correctness; it is never said to have not paid off.
 */
final class ModelFeedback {
    private ModelFeedback() {}

    /** The devlog without step 08's dead ends of its fixes' rows (each step 08 fix is one entry of the stack instead). */
    static List<Devlog.Entry> withoutCheckRows(List<Devlog.Entry> devlog, CorrectnessResult checked) {
        if (checked == null) return devlog;
        List<String> prefixes = new ArrayList<>();
        for (String fix : FailedCheck.fixes(checked)) {
            checked.rows().stream().filter(r -> r.candidate().equals(fix)).map(CheckRow::subject).distinct()
                    .forEach(subject -> prefixes.add("correctness: " + subject + " " + fix + " "));
        }
        return devlog.stream().filter(e -> e.kind() != Devlog.Kind.DEAD_END || prefixes.stream().noneMatch(e.text()::startsWith)).toList();
    }

    /** A negative result per change that step 07 found no win at any token count, its numbers with their caveats as evidence. */
    static List<FeedbackItem> noWins(ChangeStack stack) {
        List<FeedbackItem> out = new ArrayList<>();
        for (Change c : stack.changes()) {
            var opening = ModelChanges.notProposed(c.title());
            if (opening.isEmpty()) continue;
            List<String> evidence = new ArrayList<>();
            for (Delta d : c.deltas()) evidence.add("step 07, " + d.workload() + ": " + d.describe());
            out.add(new FeedbackItem(FeedbackKind.NEGATIVE_RESULT, "change " + c.id() + " (" + c.title().substring(opening.get().length()) + ") is "
                    + (opening.get().equals(ModelChanges.INCONCLUSIVE) ? "inconclusive (within the noise)" : "no win") + " in step 07 at any token count", evidence));
        }
        return out;
    }

    /** Step 01: per compiled tree and token count slower than eager by more than either side's noise, one item with both times and their noise. */
    static List<FeedbackItem> slowerThanEager(ModelBaselines b) {
        List<FeedbackItem> out = new ArrayList<>();
        for (ModelBaselines.Row r : b.rows()) {
            if (r.tree() == ModelTree.EAGER || r.failed()) continue;
            var eager = b.row(ModelTree.EAGER, r.tokens()).filter(e -> !e.failed());
            if (eager.isEmpty()) continue;
            ModelBaselines.Row e = eager.get();
            double noise = Math.max(r.run().noise(), e.run().noise());
            if (r.wallUs() / e.wallUs() - 1 <= Math.max(noise, SkillFeedback.NOISE)) continue;
            String figure = String.format(Locale.ROOT, "%.1f us (noise %.1f%%) vs eager %.1f us (noise %.1f%%)", r.wallUs(), 100 * r.run().noise(), e.wallUs(), 100 * e.run().noise());
            out.add(new FeedbackItem(FeedbackKind.EDGE_CASE, "step 01: the " + r.tree().id() + " tree is slower than eager at " + r.tokens() + " tokens, "
                    + ModelBaselinesStep.vsEager(b, r, "(noisy: measure again before relying on it)") + ": " + figure + "; compiling it does not pay at this size",
                    List.of(String.format(Locale.ROOT, "step 01, row %s @ %d tokens: %s; compile %.2f s, %d graphs, %d breaks, %d recompiles", r.tree().id(), r.tokens(),
                            figure, r.compile().seconds(), r.compile().graphs(), r.compile().graphBreaks(), r.compile().recompiles()))));
        }
        return out;
    }

    /** Step 05: per fix and token count slower than the model as written, outside the noise, one item with both times and their caveat. */
    static List<FeedbackItem> slowerFixes(ModelFixResult fix) {
        List<FeedbackItem> out = new ArrayList<>();
        for (ModelFixResult.FixRow f : fix.rows()) {
            if (!f.measured() || f.fixedUs() <= f.baselineUs() * (1 + SkillFeedback.NOISE) || f.caveat().contains(ModelFixResult.WITHIN_NOISE)) continue;
            out.add(new FeedbackItem(FeedbackKind.NEGATIVE_RESULT, "step 05: fix " + f.fix() + " (" + fix.kinds(f) + ") is slower than the model as written at "
                    + f.tokens() + " tokens, " + f.describe(),
                    List.of(String.format(Locale.ROOT, "step 05, row %s @ %d tokens: %.1f us vs baseline %.1f us, %+.1f%%, %s", f.fix(), f.tokens(), f.fixedUs(),
                            f.baselineUs(), f.deltaPercent(), f.caveat().isEmpty() ? "outside both sides' noise" : f.caveat()))));
        }
        return out;
    }

    /** Step 06: per region past the recompile limit, one item naming the call where it hit the limit and the guards that recompiled it. */
    static List<FeedbackItem> overTheLimit(BudgetResult budget) {
        List<FeedbackItem> out = new ArrayList<>();
        for (RegionGraphs r : budget.regions()) {
            if (r.graphs() <= r.limit()) continue;
            out.add(new FeedbackItem(FeedbackKind.COMPILE_LIMIT, "step 06: region " + r.region() + " recompiled past the limit, " + r.graphs() + " graphs of "
                    + r.limit() + " (" + r.sites().size() + " call sites x " + r.tokens().size() + " token counts x " + r.modes().size()
                    + " grad modes): past it dynamo runs the calls eager, and under fullgraph they fail", List.of("step 06, region " + r.region() + ": " + r.source())));
        }
        return out;
    }

    /** {@code items} with step 06's regions past the limit said once, by {@link #overTheLimit} (the method's own item for one has no step or call). */
    static List<FeedbackItem> withoutPlainLimitItems(List<FeedbackItem> items, BudgetResult budget) {
        if (budget == null) return items;
        List<String> plain = budget.regions().stream().filter(r -> r.graphs() > r.limit()).map(r -> "region " + r.region() + " needs ").toList();
        return items.stream().filter(i -> i.kind() != FeedbackKind.COMPILE_LIMIT || plain.stream().noneMatch(i.proposal()::startsWith)).toList();
    }

    /**
     * {@code items} with each fix step 08 found wrong said to have failed correctness (how many rows, the worst check
     * and its tensor) where the method's own wording says its idea "did not pay off", which reads as slow, not wrong.
     */
    static List<FeedbackItem> withWrongFixesNamed(List<FeedbackItem> items, ChangeStack stack, CorrectnessResult checked) {
        Map<String, FailedCheck> failed = checked == null ? Map.of() : FailedCheck.of(checked);
        List<FeedbackItem> out = new ArrayList<>();
        for (FeedbackItem i : items) {
            var wrong = stack.rejected().stream().filter(r -> r.idea().endsWith(ModelChanges.WRONG_IN_STEP_08) && i.proposal().equals(r.idea() + " did not pay off")).findFirst();
            if (i.kind() != FeedbackKind.NEGATIVE_RESULT || wrong.isEmpty()) {
                out.add(i);
                continue;
            }
            String idea = wrong.get().idea(), fix = idea.startsWith("fix ") && idea.contains(" (") ? idea.substring(4, idea.indexOf(" (")) : "";
            FailedCheck f = failed.get(fix);
            out.add(new FeedbackItem(FeedbackKind.NEGATIVE_RESULT, idea + " failed correctness" + (f == null ? " in step 08" : ": " + f.describe()), i.evidence()));
        }
        return out;
    }
}
