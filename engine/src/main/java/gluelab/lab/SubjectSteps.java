package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.rank.SourceRanking;
import gluelab.torch.ModelBaselines;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.trace.TraceCharts;
import gluelab.trace.TraceSummary;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.ModelProfileStep;
import gluelab.workflow.model.ModelTables;
import gluelab.workflow.model.StepQuiet;

import java.util.List;

/**
 * Steps 00, 01, 03 and 04 for whichever subject the experiment's plan names: the catalogue's story
 * (catalogue ops benched, the shipped traces read, the baselines ranked) or the analyst's model's
 * (its trees timed, profiled by the harness, ranked per source line), each as the {@link StepView}
 * its notebook shows.
 */
final class SubjectSteps {
    /** The catalogue ops step 01 benches: the glue of a Llama-style layer. */
    static final List<String> BASELINE_OPS = List.of("rmsnorm", "add_rmsnorm", "qnorm_rope_complex", "swiglu");
    /** Source rows and ranked candidates a view shows. */
    static final int ROWS = 15;

    private SubjectSteps() {}

    /** Step 00: a model plan when {@code modelFile} is set ({@code FILE.py:FUNCTION}), else the catalogue's. */
    static ExperimentPlan plan(Gluelab lab, ExperimentFolder ex, String model, double stopFraction, String tokens, String modelFile, String inputs, String regions) {
        try {
            if (modelFile == null || modelFile.isBlank()) return lab.plan(ex, model, stopFraction, tokens);
            return lab.planModel(ex, gluelab.torch.ModelEntry.find(modelFile.strip()).toString(), inputs, tokens, model, stopFraction, regions(regions)).plan();
        } catch (RuntimeException e) {
            if (!ex.hasPlan()) ex.removeIfNothingWritten(); // notebook 00 opened the folder a cell before: bad input leaves no empty experiment
            throw e;
        }
    }

    /** {@code a, b} as a list; blank: none. */
    static List<String> regions(String regions) {
        if (regions == null || regions.isBlank()) return List.of();
        return java.util.Arrays.stream(regions.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    static StepView baselines(Gluelab lab, ExperimentFolder ex) {
        ExperimentPlan plan = ex.plan();
        if (plan.hasModelSubject()) {
            ModelBaselines b = lab.modelBaselines(ex);
            long failed = b.rows().stream().filter(ModelBaselines.Row::failed).count();
            return new StepView(subject(plan.modelSubject()) + ": " + b.rows().size() + " rows (trees x token counts) timed fwd+bwd"
                    + (failed == 0 ? "" : ", " + failed + " failed") + " (" + b.versions().describe() + ")", List.of(StepQuiet.marked(ModelTables.baselines(b), ex, Step.BASELINES)));
        }
        var run = lab.bench(BASELINE_OPS.toArray(String[]::new)).forPlan(plan).passes("fwd", "bwd").quick().check(0).record(ex, Step.BASELINES);
        var result = run.result();
        return new StepView("catalogue ops " + String.join(", ", BASELINE_OPS) + ", eager against fused at tokens " + plan.tokens(),
                List.of(result.baselines(), result.chart("fwd"), result.chart("bwd")));
    }

    /** Step 03: {@code traces} and {@code bandwidthGBs} are the catalogue's shipped (or the user's) traces; a model is profiled by the harness instead. */
    static StepView profile(Gluelab lab, ExperimentFolder ex, String traces, double bandwidthGBs) {
        ExperimentPlan plan = ex.plan();
        if (plan.hasModelSubject()) {
            ModelProfileStep.Result r = lab.modelProfile(ex);
            ModelProfile p = r.profile();
            var parts = new java.util.ArrayList<Object>(List.of(StepQuiet.marked(ModelTables.trees(p, r.summaries(), r.diffs()), ex, Step.PROFILE_DIFF)));
            p.tree(ModelTree.EAGER).filter(t -> !t.failed()).ifPresent(t -> parts.add(ModelTables.sourceRows(t, ROWS)));
            TraceSummary eager = r.summaries().get(ModelTree.EAGER);
            if (eager != null && !eager.symptoms().isEmpty()) parts.add(eager.symptoms());
            return new StepView(subject(plan.modelSubject()) + " profiled at " + p.tokens() + " tokens: " + r.summaries().size() + " of " + p.trees().size()
                    + " trees (traces kept in steps/03-profile-diff/)", parts);
        }
        var diff = lab.profileDiff(ex, traces + "/block_eager_T4096.json.gz", traces + "/block_compiled_T4096.json.gz");
        var glue = lab.trace(traces + "/glue_eager_shapes_T8192.json.gz", bandwidthGBs);
        return new StepView("a Llama-style block's traces, eager against torch.compile, from " + traces,
                List.of(Gluelab.families(diff), TraceCharts.families(diff), glue.symptoms(), glue.opFloors().stream().limit(8).toList()));
    }

    static StepView ranking(Gluelab lab, ExperimentFolder ex) {
        ExperimentPlan plan = ex.plan();
        if (plan.hasModelSubject()) {
            SourceRanking r = lab.modelRank(ex);
            int worth = r.worthFixing().size();
            return new StepView(subject(plan.modelSubject()) + ", eager profile: " + worth + " of " + r.ranked().size()
                    + " (source line, op) rows above the stop rule (" + String.format("%.2g", 100 * plan.stopFraction()) + "% of the step)"
                    + (worth == 0 ? "" : "; first: " + r.worthFixing().getFirst().label()), List.of(StepQuiet.marked(ModelTables.ranking(r, ROWS), ex, Step.PROFILE_DIFF)));
        }
        var ranking = lab.rank(ex);
        return new StepView("the baselines step 01 recorded, ranked (" + plan.model() + ", tokens " + plan.tokens() + ")",
                List.of(ranking, Charts.ranked(ranking, lab.device().facts().name(), plan.model())));
    }

    private static String subject(ModelSubject s) { return "model " + java.nio.file.Path.of(s.file()).getFileName() + ":" + s.function(); }
}
