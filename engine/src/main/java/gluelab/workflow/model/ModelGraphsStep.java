package gluelab.workflow.model;

import gluelab.files.AtomicFiles;
import gluelab.model.ModelSpec;
import gluelab.progress.Progress;
import gluelab.table.TableFormat;
import gluelab.torch.ModelGraphs;
import gluelab.torch.ModelTree;
import gluelab.torch.StepLimits;
import gluelab.torch.TorchBridge;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.experiment.StepResults;
import gluelab.workflow.graphbudget.BudgetResult;
import gluelab.workflow.graphbudget.Call;
import gluelab.workflow.graphbudget.GradMode;
import gluelab.workflow.graphbudget.RegionBudget;
import gluelab.workflow.graphbudget.RegionGraphs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Step 06 for the analyst's model: the graphs dynamo compiles for each region (the plan's {@code --regions}) and for the
 * repeated blocks compiled one by one, per call site x token count x grad mode, against the recompile limit. Kept as
 * {@code steps/06-graph-budget/model-graphs.json} (every call, dynamo's log), {@code budget.json} (the catalogue's
 * budget shape, so later steps read it alike) and {@code graph-budget.md}.
 */
public final class ModelGraphsStep {
    public static final String FILE = "model-graphs", BUDGET = "budget", SUMMARY = "graph-budget";

    private ModelGraphsStep() {}

    /** What dynamo compiled, and the budget it makes. */
    public record Result(ModelGraphs graphs, BudgetResult budget) {
        public String text() { return ModelGraphsStep.text(graphs, budget); }
    }

    /** The trees with regions of their own the plan has: its regions when it names any, and per-block. */
    public static List<ModelTree> trees(ModelSubject subject) {
        return subject.regions().isEmpty() ? List.of(ModelTree.PER_BLOCK) : List.of(ModelTree.REGIONS, ModelTree.PER_BLOCK);
    }

    public static ModelGraphs.Options defaults(ModelSubject subject) {
        return new ModelGraphs.Options(trees(subject), null, "inductor", true, 0);
    }

    public static Result run(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, ModelGraphs.Options options, Progress progress) {
        return run(ex, bridge, spec, options, StepLimits.standard(), progress);
    }

    /** As above, the model's code under {@code limits}; a step whose every tree stopped before its first call is marked failed. */
    public static Result run(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, ModelGraphs.Options options, StepLimits limits, Progress progress) {
        try (var running = ex.running(Step.GRAPH_BUDGET)) {
            ExperimentPlan plan = ex.plan();
            ModelSubject s = plan.modelSubject();
            if (options.trees().contains(ModelTree.REGIONS) && s.regions().isEmpty())
                throw new IllegalArgumentException("graph budget of the regions tree: the plan names no regions (plan it with --regions model.Attention.rope,...)");
            ModelGraphs g = ModelGraphs.run(bridge, ModelPlan.entry(ex), ModelBaselinesStep.inputsAt(plan, spec), s.regions(), s.blocks(), options, limits, progress);
            Path dir = ex.stepDir(Step.GRAPH_BUDGET);
            Path raw = dir.resolve(FILE + ".json");
            StepResults.save(raw, g);
            BudgetResult budget = budget(g);
            Path file = dir.resolve(BUDGET + ".json");
            budget.save(file);
            Path md = dir.resolve(SUMMARY + ".md");
            AtomicFiles.write(md, text(g, budget));
            for (ModelGraphs.TreeGraphs t : g.trees()) if (t.failed()) ex.devlog().deadEnd("graph budget of the " + t.tree().id() + " tree stopped: " + t.error());
            for (RegionGraphs r : budget.regions()) {
                String line = "graph budget: " + r.region() + " holds " + r.graphs() + " graphs of " + r.limit() + " (" + r.status() + "; " + r.sites().size()
                        + " call sites x " + r.tokens().size() + " token counts x " + r.modes().size() + " grad modes; " + r.source() + ")";
                if (r.ok()) ex.devlog().measurement(line);
                else ex.devlog().decision(line + ": over the aim of " + r.target() + "; mark the recompiling dim dynamic, merge call sites or size the region differently");
            }
            Map<String, String> files = new LinkedHashMap<>();
            files.put(BUDGET, ex.dir().relativize(file).toString());
            files.put(FILE, ex.dir().relativize(raw).toString());
            files.put(SUMMARY, ex.dir().relativize(md).toString());
            String summary = budget.regions().isEmpty() ? "no regions compiled" : budget.summary();
            if (g.nothingCounted()) ex.failed(Step.GRAPH_BUDGET, files, "nothing counted: every tree stopped before its first call: " + summary);
            else ex.done(Step.GRAPH_BUDGET, List.of(), files, summary);
            return new Result(g, budget);
        }
    }

    /** What step 06 kept for the model. */
    public static ModelGraphs load(ExperimentFolder ex) {
        return StepResults.load(ex.file(Step.GRAPH_BUDGET, FILE), ModelGraphs.class, ModelGraphs.FORMAT);
    }

    static GradMode mode(ModelGraphs.CallGraphs c) { return c.grad() ? GradMode.GRAD : GradMode.NO_GRAD; }

    /**
     * The budget: per region the graphs dynamo holds for it; a region that hit the limit counts one past it (it needed
     * another graph and dynamo refused: those calls ran eager, or failed under fullgraph). Its source names the call site,
     * token count and grad mode of each recompile with the guard that failed, where dynamo's log says.
     */
    static BudgetResult budget(ModelGraphs g) {
        int limit = g.limit() > 0 ? g.limit() : RegionBudget.TORCH_RECOMPILE_LIMIT;
        int target = Math.min(RegionBudget.TARGET, limit);
        List<RegionGraphs> regions = new ArrayList<>();
        List<Call> calls = new ArrayList<>();
        for (ModelGraphs.TreeGraphs t : g.trees()) {
            for (ModelGraphs.RegionCount r : t.regions()) {
                List<ModelGraphs.CallGraphs> mine = t.calls().stream().filter(c -> c.region().equals(r.region())).toList();
                Optional<ModelGraphs.CallGraphs> hit = mine.stream().filter(c -> !c.limitHit().isEmpty()).findFirst();
                int graphs = r.graphs() + (hit.isPresent() ? 1 : 0);
                regions.add(new RegionGraphs(r.region(), graphs, limit, target, mine.stream().map(ModelGraphs.CallGraphs::site).distinct().toList(),
                        mine.stream().map(ModelGraphs.CallGraphs::tokens).distinct().toList(), mine.stream().map(ModelGraphsStep::mode).distinct().toList(),
                        source(t.tree(), r, mine, hit)));
                for (ModelGraphs.CallGraphs c : mine) {
                    calls.add(new Call(c.region(), c.site(), c.tokens(), mode(c), c.compiled() == 0 ? (c.error().isEmpty() ? "reused a graph" : "FAILED: " + c.error())
                            : "compiled " + String.join(", ", c.compileIds().isEmpty() ? List.of(c.compiled() + " graphs") : c.compileIds())
                            + (c.guard().isEmpty() ? "" : " (guard: " + GuardReason.readable(c.guard()) + ")")));
                }
            }
        }
        return new BudgetResult(BudgetResult.FORMAT, limit, target, regions, calls);
    }

    private static String source(ModelTree tree, ModelGraphs.RegionCount r, List<ModelGraphs.CallGraphs> mine, Optional<ModelGraphs.CallGraphs> hit) {
        StringBuilder sb = new StringBuilder("dynamo, " + tree.id() + " tree" + (r.defined().isEmpty() ? "" : ", defined at " + r.defined()));
        List<String> why = new ArrayList<>();
        for (ModelGraphs.CallGraphs c : mine) {
            if (c.guard().isEmpty()) continue;
            why.add(c.site() + " @ " + c.tokens() + " tokens " + mode(c).id() + ": " + GuardReason.readable(c.guard()));
        }
        if (!why.isEmpty()) sb.append("; recompiled at ").append(String.join("; ", why));
        hit.ifPresent(c -> sb.append("; hit the recompile limit at ").append(c.site()).append(" @ ").append(c.tokens()).append(" tokens ").append(mode(c).id())
                .append(": ").append(c.limitHit()));
        return sb.toString();
    }

    static String text(ModelGraphs g, BudgetResult b) {
        StringBuilder sb = new StringBuilder("# Graph budget of " + g.model() + " (recompile limit " + b.limit() + ", aim <= " + b.target() + ")\n\n");
        for (ModelGraphs.TreeGraphs t : g.trees()) if (t.failed()) sb.append("The ").append(t.tree().id()).append(" tree stopped: ").append(t.error()).append("\n\n");
        sb.append(TableFormat.markdown(b.table())).append('\n');
        for (RegionGraphs r : b.overTarget()) sb.append("- ").append(r.region()).append(": ").append(r.graphs()).append(" graphs (").append(r.status()).append("); ")
                .append(r.source()).append('\n');
        if (!b.overTarget().isEmpty()) sb.append('\n');
        sb.append(TableFormat.markdown(b.callTable()));
        return sb.toString();
    }
}
