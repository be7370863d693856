package gluelab.lab;

import gluelab.chart.Charts;
import gluelab.floor.FlopPeak;
import gluelab.timing.TimingConfig;
import gluelab.torch.ModelFix;
import gluelab.torch.ModelGraphs;
import gluelab.torch.ModelTree;
import gluelab.workflow.confirm.ModelConfirmTables;
import gluelab.workflow.confirm.Comparison;
import gluelab.workflow.confirm.ModelConfirmResult;
import gluelab.workflow.confirm.ModelConfirmation;
import gluelab.workflow.correctness.CorrectnessResult;
import gluelab.workflow.correctness.StepCorrectness;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.fix.FixStep;
import gluelab.workflow.graphbudget.RegionBudget;
import gluelab.workflow.model.ModelCheckStep;
import gluelab.workflow.model.ModelFixDefaults;
import gluelab.workflow.model.ModelFixResult;
import gluelab.workflow.model.ModelFixStep;
import gluelab.workflow.model.ModelGraphsStep;
import gluelab.workflow.model.ModelIdealTimesStep;
import gluelab.workflow.model.ModelTables;
import gluelab.workflow.model.StepQuiet;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Steps 02, 05, 06, 07 and 08 for whichever subject the experiment's plan names, each as the
 * {@link StepView} its notebook shows: the catalogue's story as its notebook configures it (the
 * {@code catalogue} argument adds the analyst's regions, sites and checks; it is not called on a
 * model), or the analyst's model's step. The notebooks time with the quick timing, as the
 * catalogue's fix and confirm cells always have; {@code gluelab model fix|confirm} time with the default.
 */
final class SubjectFixSteps {
    static final TimingConfig NOTEBOOK_TIMING = TimingConfig.quick();

    private SubjectFixSteps() {}

    /** Step 02: the catalogue's floors at the plan's model and token counts, or the model's from the shapes its eager profile recorded. */
    static StepView ideals(Gluelab lab, ExperimentFolder ex) {
        ExperimentPlan plan = ex.plan();
        if (plan.hasModelSubject()) {
            var r = ModelIdealTimesStep.run(ex, lab.torch().bridge(), lab.spec(plan.model()), lab.calibration().bandwidth(),
                    FlopPeak.of(lab.calibration(), lab.device().capabilities()), lab.progress());
            return new StepView(subject(plan.modelSubject()) + ": floors of " + r.table().rowCount() + " (source line, op, pass) rows at " + r.profile().tokens()
                    + " tokens, from the shapes " + (r.profiledHere() ? "of an eager profile made here (step 03 has not run)" : "step 03's eager profile recorded")
                    + ", at " + lab.calibration().describe(), List.of(r.table()));
        }
        var floors = lab.idealTimes(ex);
        return new StepView("the catalogue's floors at " + plan.model() + ", tokens " + plan.tokens() + " (shown: " + plan.largestTokens() + ")",
                List.of(floors.where(floors.intColumn("tokens").isEqualTo((int) plan.largestTokens())),
                        lab.floor("rmsnorm", plan.model(), plan.largestTokens(), "fwd"),
                        Charts.percentOfFloor(ex.record(Step.BASELINES).rows(), plan.largestTokens(), lab.device().facts().name())));
    }

    /** The model fixes step 05 tries: {@code text} ({@code NAME=SPEC;...}), else the shipped example's defaults, else an error saying what to pass. */
    static ModelFixDefaults modelFixes(ExperimentFolder ex, String text) {
        ModelSubject s = ex.plan().modelSubject();
        List<String> given = ModelFixDefaults.split(text);
        if (!given.isEmpty()) return new ModelFixDefaults(s.entry(), given, Map.of());
        return ModelFixDefaults.of(s).orElseThrow(() -> ModelFixDefaults.noneFor(s, ex.name(), false));
    }

    /** Step 05: the catalogue's candidates with the fixes {@code catalogue} adds, or the model's fixes ({@code modelFixes}, blank: the defaults). */
    static StepView fixes(Gluelab lab, ExperimentFolder ex, String modelFixes, UnaryOperator<FixStep> catalogue) {
        ExperimentPlan plan = ex.plan();
        if (plan.hasModelSubject()) {
            ModelFixDefaults chosen = modelFixes(ex, modelFixes);
            boolean defaults = ModelFixDefaults.split(modelFixes).isEmpty();
            ModelFixResult r = ModelFixStep.run(ex, lab.device(), lab.torch().bridge(), lab.spec(plan.model()), chosen.parsed(), null, NOTEBOOK_TIMING, lab.torch().flushBytes(),
                    lab.progress());
            r = ModelFixReferences.add(lab, ex, r, chosen.references(), NOTEBOOK_TIMING);
            List<Object> parts = new ArrayList<>(List.of(StepQuiet.marked(ModelTables.fixes(r), ex, Step.FIX)));
            if (!r.interactions().isEmpty()) parts.add(ModelTables.interactions(r));
            if (!r.references().isEmpty()) parts.add(ModelTables.references(r));
            if (!r.notes().isEmpty()) parts.add(r.notes());
            return new StepView(subject(plan.modelSubject()) + ": " + r.summary() + "; fixes " + (defaults ? "(the example's defaults; set modelFixes to choose) " : "")
                    + String.join("; ", chosen.fixes()) + (chosen.references().isEmpty() ? "" : ", best known kernel " + chosen.references()), parts);
        }
        var fixes = catalogue.apply(lab.fix(ex)).record(ex);
        return new StepView("the candidates step 04 ranked, each fix against today's variant (" + plan.model() + ", tokens " + plan.tokens() + ")",
                List.of(fixes.table(), fixes.interactionTable(), Gluelab.fixChart(fixes), fixes.sizingTable(), fixes.winners()));
    }

    /** Step 06: the catalogue's regions at the sites {@code catalogue} adds, or the model's regions and blocks counted by dynamo ({@code backend}: inductor or aot_eager). */
    static StepView graphs(Gluelab lab, ExperimentFolder ex, String backend, UnaryOperator<RegionBudget> catalogue) {
        ExperimentPlan plan = ex.plan();
        if (plan.hasModelSubject()) {
            List<ModelTree> trees = ModelGraphsStep.trees(plan.modelSubject());
            var r = lab.modelGraphs(ex, new ModelGraphs.Options(trees, null, backend == null || backend.isBlank() ? "inductor" : backend.strip(), true, 0));
            return new StepView(subject(plan.modelSubject()) + ", trees " + trees.stream().map(ModelTree::id).toList() + " at tokens " + plan.tokens()
                    + ", training and no_grad, counted by dynamo: " + r.budget().summary(), List.of(r.budget().table(), r.budget().callTable()));
        }
        var budget = catalogue.apply(lab.graphBudget(ex)).record(ex);
        return new StepView("the regions at their call sites, tokens " + plan.tokens() + ": " + budget.summary(), List.of(budget.table(), budget.callTable()));
    }

    /** Step 07: the catalogue's candidates screened and confirmed (eager against fused at the largest token count), or step 05's model fixes at the token counts it measured. */
    static StepView confirmation(Gluelab lab, ExperimentFolder ex) {
        ExperimentPlan plan = ex.plan();
        if (plan.hasModelSubject()) {
            ModelFixResult fix = ModelFixStep.load(ex);
            ModelConfirmResult r = new ModelConfirmation(lab.device(), lab.torchPython()).progress(lab.progress())
                    .run(ex, lab.spec(plan.model()), fix, fix.fixes(), NOTEBOOK_TIMING);
            List<Object> parts = new ArrayList<>(List.of(ModelConfirmTables.confirmation(r), ModelConfirmTables.processes(r)));
            if (!r.flags().isEmpty()) parts.add(r.flags());
            return new StepView(subject(plan.modelSubject()) + ": step 05's fixes " + fix.fixes().stream().map(ModelFix::name).toList() + " at tokens " + r.tokens()
                    + ": " + r.summary(), parts);
        }
        var comparisons = ex.ranking().worthFixing().stream().map(c -> Comparison.of(c.op().name(), plan.largestTokens(), "eager", "fused")).distinct().toList();
        var job = lab.confirmJob(ex, comparisons, TimingConfig.quick());
        var screen = lab.screen(job);
        var confirmed = lab.confirm(ex, job);
        return new StepView("each candidate eager against fused at " + plan.largestTokens() + " tokens: screened in this process, then " + confirmed.summary(),
                List.of(comparisons, screen, confirmed.table(), confirmed.processTable()));
    }

    /**
     * Step 08 at {@code tokens}: the catalogue's fused kernel per candidate with the checks {@code catalogue}
     * adds, or the model's fixes ({@code modelFixes}, blank: the fixes step 05 tried) against eager and fp64.
     */
    static StepView checks(Gluelab lab, ExperimentFolder ex, long tokens, String modelFixes, UnaryOperator<StepCorrectness> catalogue) {
        ExperimentPlan plan = ex.plan();
        CorrectnessResult r;
        String what;
        if (plan.hasModelSubject()) {
            List<String> given = ModelFixDefaults.split(modelFixes);
            List<ModelFix> fixes = given.isEmpty() ? ModelFixStep.load(ex).fixes() : given.stream().map(ModelFix::parse).toList();
            var checked = ModelCheckStep.check(ex, lab.torch().bridge(), lab.spec(plan.model()), fixes, ModelCheckStep.DTYPES, tokens, lab.progress());
            r = checked.now();
            what = subject(plan.modelSubject()) + ": " + (given.isEmpty() ? "step 05's fixes " : "the fixes ") + fixes.stream().map(ModelFix::name).toList()
                    + " vs eager and fp64 in bf16 and fp32 (" + checked.merge() + ")";
        } else {
            var check = lab.correctness(ex).tokens(tokens);
            ex.ranking().worthFixing().stream().map(c -> c.op().name()).distinct().forEach(op -> check.op(op, "fused"));
            r = catalogue.apply(check).record(ex);
            what = "the candidates' fused kernels and the regions vs eager and fp64";
        }
        return new StepView(what + " at " + tokens + " tokens: " + r.summary(), List.of(r.table(), r.failures()));
    }

    private static String subject(ModelSubject s) { return "model " + java.nio.file.Path.of(s.file()).getFileName() + ":" + s.function(); }
}
