package gluelab.lab;

import gluelab.workflow.confirm.ConfirmResult;
import gluelab.workflow.confirm.Confirmation;
import gluelab.workflow.confirm.ConfirmedRow;
import gluelab.workflow.correctness.CheckRow;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.correctness.StepCorrectness;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.feedback.FeedbackItem;
import gluelab.workflow.feedback.Interaction;
import gluelab.workflow.feedback.SkillFeedback;
import gluelab.workflow.fix.Attempt;
import gluelab.workflow.fix.FixResult;
import gluelab.workflow.fix.InteractionRow;
import gluelab.workflow.graphbudget.BudgetResult;
import gluelab.workflow.graphbudget.RegionBudget;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.rank.Candidate;
import gluelab.record.Row;
import gluelab.workflow.stack.*;
import gluelab.tensor.DType;
import gluelab.workflow.writeup.Writeup;

import java.nio.file.Files;
import java.util.*;

/**
 * Steps 09-11 on an experiment: the wiring between what steps 04-08 left in the folder and the
 * change stack, the write-up and the skill feedback. A change's numbers (before -> after, its
 * correctness, its graph count, its layer share, what it beat and what was skipped) all come from
 * the experiment; only the analyst's title, commit and wording are given.
 */
final class WriteupSteps {
    static final String STACK = "stack", FINDINGS = "findings", PR = "pr", FEEDBACK = "feedback";

    private WriteupSteps() {}

    /** The experiment's stack (step 09), or an empty one with the conditions the steps before measured under. */
    static ChangeStack stack(Gluelab lab, ExperimentFolder ex) {
        ExperimentPlan plan = ex.plan();
        ConfirmResult confirmed = ex.has(Step.CONFIRM) ? Confirmation.latest(ex) : null;
        Conditions conditions = new Conditions(lab.facts().name(), plan.model(), DType.BF16, List.of(Pass.FORWARD, Pass.BACKWARD),
                "whole fwd+bwd steps, cold samples", confirmed == null ? 0 : confirmed.processesOk(), confirmed == null ? List.of() : confirmed.fewer(),
                confirmed == null ? 0 : (int) confirmed.rows().stream().filter(ConfirmedRow::measured).count());
        return ChangeStack.loadOr(ex.stackFile(), conditions);
    }

    /**
     * A change for the catalogue's fused kernel of {@code op}, filled from steps 04-08: the
     * confirmed before -> after of step 07 (normal launch and graph replay), step 08's verdicts,
     * step 06's graph count, step 04's share of the layer, the fixes step 05 measured beside it
     * (rejected) and skipped (not tested). Add or replace facts on the builder, then {@code build()}.
     */
    static Change.Builder change(Gluelab lab, ExperimentFolder ex, String op, String title, String commit) {
        ExperimentPlan plan = ex.plan();
        String variant = Variant.FUSED.id();
        ConfirmResult confirmed = Confirmation.latest(ex);
        List<ConfirmedRow> rows = confirmed.rows().stream()
                .filter(r -> r.comparison().op().equals(op) && r.comparison().candidate() == Variant.FUSED && r.measured()).toList();
        if (rows.isEmpty()) throw new IllegalArgumentException("experiment '" + ex.name() + "': step 07 confirmed no " + op + " eager -> fused comparison; run 07-confirm with it first");
        String id = op.replace('_', '-') + "-fused";
        Change.Builder b = Change.builder(id, title).kind(FixKind.KERNEL).variant(op + ", catalogue fused kernel").region(op).commit(commit);
        for (ConfirmedRow r : rows) b.delta(Delta.of(r.comparison().tokens(), r.replay(), r.baselineUs(), r.candidateUs()).withCaveat(confirmed.caveat(r)));

        Optional<Candidate> ranked = ex.ranking().ranked().stream().filter(c -> c.op().name().equals(op)).max(Comparator.comparingDouble(Candidate::share));
        double share = ex.ranking().ranked().stream().filter(c -> c.op().name().equals(op)).mapToDouble(Candidate::share).sum();
        if (share > 0 && share <= 1) b.layerShare(share);

        if (ex.has(Step.CORRECTNESS)) for (CorrectnessVerdict v : verdicts(StepCorrectness.latest(ex), op, variant)) b.correctness(v);
        if (ex.has(Step.GRAPH_BUDGET)) RegionBudget.latest(ex).region(op).ifPresent(g -> b.graphs(g.graphs(), g.limit()));

        Scope scope = lab.reach(op);
        b.scope(scope.isEmpty() ? Scope.specs(List.of(plan.model())) : scope);

        List<String> notTested = new ArrayList<>();
        if (ex.has(Step.FIX)) {
            FixResult fix = FixResult.load(ex.file(Step.FIX, "fix"));
            for (Attempt a : fix.attempts()) {
                if (!a.op().equals(op)) continue;
                boolean chosen = a.source() == gluelab.workflow.fix.FixSource.CATALOGUE_VARIANT && a.name().equals(variant);
                String idea = a.source().label() + " '" + a.name() + "' (" + a.pass() + ", " + a.tokens() + " tokens)";
                if (a.measured() && !chosen) b.rejected(idea, a.describe());
                else if (a.status() != Attempt.Status.MEASURED) notTested.add(idea + ": " + a.reason());
            }
        }
        Set<Long> confirmedTokens = new TreeSet<>();
        rows.forEach(r -> confirmedTokens.add(r.comparison().tokens()));
        for (long t : plan.tokens()) if (!confirmedTokens.contains(t)) notTested.add(Delta.tokens(t) + " tokens in fresh processes (screened in step 01 only)");
        notTested.forEach(b::notTested);

        var source = gluelab.backend.cuda.FusedSources.of(op)
                .orElseThrow(() -> new IllegalArgumentException("catalogue op " + op + " has no fused kernel family in " + gluelab.backend.cuda.FusedSources.FOLDER + " to name in its PR"));
        for (String k : source.kernels()) b.code(source.file(), k, "the catalogue's fused kernel that runs " + op + " in place of its eager kernels");
        String kernels = ranked.map(c -> eagerKernels(ex, op, c.tokens())).orElse("several");
        long floorTokens = ranked.map(Candidate::tokens).orElse(plan.largestTokens());
        String floor = ranked.map(c -> String.format(Locale.ROOT, "%.1f us", c.idealUs())).orElse("its floor");
        b.problem(op + " runs eager as " + kernels + " kernels per fwd+bwd step, one per primitive.",
                        "Every intermediate between those kernels is written to memory and read back.",
                        "At " + Delta.tokens(floorTokens) + " tokens its " + ranked.map(c -> c.pass().id()).orElse("") + " floor is " + floor + " (step 02).")
                .solution("The catalogue's fused kernel runs " + op + " in one pass per direction.",
                        "Only the inputs and outputs go to memory, intermediates stay in registers.",
                        "Screened in one process, then confirmed in " + confirmed.processesOk() + " fresh processes (step 07).")
                .unchanged("the model code, the other ops and the numerics within step 08's limits")
                .diagram("before: inputs -> [" + kernels + " eager kernels] -> intermediates in memory -> outputs\n"
                        + "after:  inputs -> [one fused kernel] -> outputs")
                .testPlan("screen eager vs fused interleaved, then confirm in 3 fresh processes, normal launch and graph replay (step 07)",
                        "outputs and every gradient vs eager and fp64 in bf16 and fp32 (step 08)");
        return b;
    }

    /** Step 09 on the catalogue: a change per op step 07 confirmed as a win (eager -> fused), titled and committed as notebook 09 does. */
    static ChangeStack stackOfWins(Gluelab lab, ExperimentFolder ex, String commit) {
        try (var running = ex.running(Step.STACK)) {
            ChangeStack stack = stack(lab, ex);
            List<String> wins = Confirmation.latest(ex).rows().stream().filter(ConfirmedRow::win).map(r -> r.comparison().op()).distinct().toList();
            for (String op : wins) stack = commit(lab, ex, change(lab, ex, op, "Run " + op + " as one fused kernel", commit).build());
            return stack;
        }
    }

    /** Adds {@code change} to the experiment's stack (replacing one with its id), saves it and marks step 09 done. */
    static ChangeStack commit(Gluelab lab, ExperimentFolder ex, Change change) {
        try (var running = ex.running(Step.STACK)) {
            ChangeStack next = stack(lab, ex).with(change);
            next.save(ex.stackFile());
            ex.devlog().decision("stack: " + change.id() + " at position " + next.position(change.id()) + " of " + next.changes().size()
                    + ", " + change.headline().describe());
            ex.done(Step.STACK, List.of(), Map.of(STACK, ExperimentFolder.STACK_FILE), next.changes().size() + " change(s), " + next.orderedBy());
            return next;
        }
    }

    /** Step 10: the findings doc and one PR text per stack entry with its chart, each text checked by the rules; marks step 10 done. */
    static Writeup.Written writeup(ExperimentFolder ex) {
        try (var running = ex.running(Step.FINDINGS)) {
            ChangeStack stack = requireStack(ex);
            Writeup.Written w = Writeup.write(ex.dir(), stack, ex.record(Step.BASELINES), feedback(ex, stack));
            Map<String, String> files = new LinkedHashMap<>();
            files.put(FINDINGS, ex.dir().relativize(w.findings()).toString());
            files.put(PR, ExperimentFolder.PR_DIR);
            ex.devlog().note("findings doc and " + w.prs().size() + " PR text(s) written; rules checker: " + (w.violations().isEmpty() ? "all pass" : w.violations().size() + " violation(s)"));
            ex.done(Step.FINDINGS, List.of(), files, w.prs().size() + " PR text(s), " + w.violations().size() + " rule violation(s)");
            return w;
        }
    }

    /** Step 11: the skill feedback from the devlog, the stack, step 05's interactions and step 06's graph counts, written and marked done. */
    static List<FeedbackItem> skillFeedback(ExperimentFolder ex) {
        try (var running = ex.running(Step.FEEDBACK)) {
            ChangeStack stack = requireStack(ex);
            List<FeedbackItem> items = feedback(ex, stack);
            SkillFeedback.write(ex.feedbackFile(), items);
            ex.done(Step.FEEDBACK, List.of(), Map.of(FEEDBACK, ExperimentFolder.FEEDBACK_FILE), items.size() + " proposed addition(s) to the method");
            return items;
        }
    }

    private static ChangeStack requireStack(ExperimentFolder ex) {
        ex.require(Step.STACK);
        if (!Files.isRegularFile(ex.stackFile())) throw ex.missing(Step.STACK);
        return ChangeStack.load(ex.stackFile());
    }

    private static List<FeedbackItem> feedback(ExperimentFolder ex, ChangeStack stack) {
        List<Interaction> interactions = new ArrayList<>();
        if (ex.has(Step.FIX)) {
            FixResult fix = FixResult.load(ex.file(Step.FIX, "fix"));
            long tokens = fix.attempts().stream().mapToLong(Attempt::tokens).max().orElse(ex.plan().largestTokens());
            for (InteractionRow r : fix.interactions()) interactions.add(Interaction.of(r.fixes(), tokens, r.us()));
        }
        List<GraphCount> graphs = new ArrayList<>();
        if (ex.has(Step.GRAPH_BUDGET)) {
            BudgetResult budget = RegionBudget.latest(ex);
            budget.regions().forEach(g -> graphs.add(new GraphCount(g.region(), g.graphs(), g.limit())));
        }
        return SkillFeedback.collect(ex.devlog().read(), stack, interactions, graphs);
    }

    /** Per dtype, the worst error against fp64 and against eager over every output and gradient of {@code op}'s {@code variant}. */
    static List<CorrectnessVerdict> verdicts(CorrectnessResult result, String op, String variant) {
        return gluelab.workflow.modelwriteup.Verdicts.of(result, op, variant);
    }

    /** The eager kernels per fwd+bwd step of {@code op} in step 01's record, e.g. "6 + 18". */
    private static String eagerKernels(ExperimentFolder ex, String op, long tokens) {
        List<String> parts = new ArrayList<>();
        for (Pass p : Pass.values()) {
            ex.record(Step.BASELINES).rows().stream()
                    .filter(r -> r.key().op().name().equals(op) && r.key().pass() == p && r.key().variant() == Variant.EAGER && r.key().tokens() == tokens)
                    .map(Row::measurement).findFirst().ifPresent(m -> parts.add(Integer.toString(m.kernels())));
        }
        return parts.isEmpty() ? "several" : String.join(" + ", parts);
    }
}
