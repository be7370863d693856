package gluelab.workflow.modelwriteup;

import gluelab.table.TableFormat;
import gluelab.workflow.confirm.ModelConfirmResult;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.Step;
import gluelab.workflow.model.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the findings doc of a model experiment shows under "What was measured": the subject, then
 * each step's own table as it left it: the trees' baselines (01), the changed functions' lines in the eager profile (03), the ranking per source line (04),
 * the fixes (05), the graph budget (06), the confirmation in fresh processes (07) and correctness (08).
 * A step that has not run is said to be missing, not left out silently; a step that found the machine busy
 * ({@link StepQuiet}) says so in its table or text.
 */
final class ModelFindings {
    private ModelFindings() {}

    /** The sections; {@code profile} (step 03's, or null) gives the eager profile's lines of each function a confirmed fix changes. */
    static List<String> sections(ExperimentFolder ex, ModelConfirmResult confirmed, gluelab.torch.ModelProfile profile) {
        ExperimentPlan plan = ex.plan();
        var s = plan.modelSubject();
        List<String> out = new ArrayList<>();
        StringBuilder subject = new StringBuilder("### The model\n\n- entry: `" + ModelChanges.display(Path.of(s.file())) + ":" + s.function() + "` on inputs `"
                + s.inputs() + "` (symbols of " + plan.model() + ")\n- tokens " + plan.tokens() + ", device " + plan.device() + "\n");
        if (!s.regions().isEmpty()) subject.append("- regions: ").append(String.join(", ", s.regions())).append('\n');
        if (ex.has(Step.BASELINES)) subject.append("- torch: ").append(ModelBaselinesStep.load(ex).versions().describe()).append('\n');
        out.add(subject.toString());

        out.add(ex.has(Step.BASELINES) ? "### Baselines (step 01)\n\n" + TableFormat.markdown(StepQuiet.marked(ModelTables.baselines(ModelBaselinesStep.load(ex)), ex, Step.BASELINES))
                : missing("Baselines", Step.BASELINES, "gluelab model baselines"));
        out.add(ex.has(Step.RANK) ? fromFile("Ranking per source line (step 04)", ex.file(Step.RANK, ModelRankStep.FILE))
                : missing("Ranking per source line", Step.RANK, "gluelab model rank"));
        if (profile != null) out.add(changedLines(confirmed, profile));
        out.add(ex.has(Step.FIX) ? "### Fixes (step 05)\n\n```\n" + ModelFixStep.load(ex).text().stripTrailing() + "\n```\n"
                : missing("Fixes", Step.FIX, "gluelab model fix"));
        out.add(ex.has(Step.GRAPH_BUDGET) ? fromFile("Graph budget (step 06)", ex.file(Step.GRAPH_BUDGET, ModelGraphsStep.SUMMARY))
                : missing("Graph budget", Step.GRAPH_BUDGET, "gluelab model graphs"));
        out.add("### Confirmation in fresh processes (step 07)\n\n```\n" + confirmed.text().stripTrailing() + "\n```\n");
        out.add(ex.has(Step.CORRECTNESS) ? fromFile("Correctness (step 08)", ex.file(Step.CORRECTNESS, ModelCheckStep.SUMMARY))
                : missing("Correctness", Step.CORRECTNESS, "gluelab model check"));
        return out;
    }

    /** Per confirmed fix, the eager profile's source lines of the functions it changes, costliest first, with their time per step. */
    static String changedLines(ModelConfirmResult confirmed, gluelab.torch.ModelProfile profile) {
        StringBuilder sb = new StringBuilder("### Source lines of the changed functions (eager profile, step 03, " + profile.tokens() + " tokens)\n\n");
        var eager = profile.tree(gluelab.torch.ModelTree.EAGER).filter(t -> !t.failed());
        for (var f : confirmed.fixes()) {
            for (String fn : ModelChanges.functions(f)) {
                java.util.Map<String, Double> byLine = new java.util.LinkedHashMap<>();
                eager.ifPresent(t -> t.rows().stream().filter(r -> ModelChanges.at(r.location(), fn)).forEach(r -> byLine.merge(r.location(), r.us(), Double::sum)));
                sb.append("- ").append(f.name()).append(", `").append(fn).append("`: ").append(byLine.isEmpty() ? "no op of the eager profile ran on its lines"
                        : String.join(", ", byLine.entrySet().stream().sorted(java.util.Map.Entry.<String, Double>comparingByValue().reversed())
                        .map(e -> String.format(java.util.Locale.ROOT, "`%s` %.1f us", e.getKey(), e.getValue())).toList())).append('\n');
            }
        }
        return sb.toString();
    }

    /** A step's markdown summary under {@code title}, its own top header dropped. */
    private static String fromFile(String title, Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file + " for the findings doc", e);
        }
        if (text.startsWith("# ")) text = text.substring(text.indexOf('\n') + 1);
        return "### " + title + "\n\n" + text.strip() + "\n";
    }

    private static String missing(String title, Step step, String command) {
        return "### " + title + " (step " + step.notebook().substring(0, 2) + ")\n\n- not run: `" + command + " NAME`\n";
    }
}
