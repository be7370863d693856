package gluelab.workflow.model;

import gluelab.files.AtomicFiles;
import gluelab.rank.SourceCandidate;
import gluelab.rank.SourceRanking;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.Step;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Step 04 for the analyst's model: one tree's profile from step 03 (eager by default: the model as
 * written) ranked per source location and op by (measured - ideal) x share of the step, with the
 * plan's stop rule; kept as {@code steps/04-rank/model-ranking.md}.
 */
public final class ModelRankStep {
    public static final String FILE = "model-ranking";

    private ModelRankStep() {}

    /**
     * The profile's rows summed per (location, op, pass) over input shapes. {@code bandwidth}: bytes per
     * second; an op's ideal is its tensor inputs read and as many bytes written at that bandwidth.
     */
    public static SourceRanking ranking(ModelProfile.TreeProfile tree, double bandwidth, double stopFraction) {
        if (tree.failed()) throw new IllegalArgumentException("the " + tree.tree().id() + " tree's profile failed (" + tree.error() + "): nothing to rank");
        if (!(bandwidth > 0)) throw new IllegalArgumentException("bandwidth must be > 0 bytes/s to give ideal times, got " + bandwidth);
        Map<List<String>, double[]> sums = new LinkedHashMap<>();
        for (ModelProfile.SourceRow r : tree.rows()) {
            double[] s = sums.computeIfAbsent(List.of(r.location(), r.op(), r.pass()), k -> new double[3]);
            s[0] += r.calls();
            s[1] += r.us();
            s[2] += r.bytes();
        }
        double step = tree.stepUs();
        List<SourceCandidate> out = new ArrayList<>();
        sums.forEach((k, s) -> out.add(new SourceCandidate(k.get(0), k.get(1), k.get(2), "", (int) s[0], s[1], 2 * s[2] / bandwidth * 1e6, step)));
        return new SourceRanking(out, stopFraction);
    }

    public static SourceRanking run(ExperimentFolder ex, ModelTree tree, double bandwidth) {
        ModelProfile p = ModelProfileStep.load(ex);
        ModelProfile.TreeProfile t = p.tree(tree).orElseThrow(() -> new IllegalArgumentException("step 03 did not profile the " + tree.id() + " tree"));
        SourceRanking r = ranking(t, bandwidth, ex.plan().stopFraction());
        Path md = ex.stepDir(Step.RANK).resolve(FILE + ".md");
        AtomicFiles.write(md, "# Ranking of " + p.model() + " (" + tree.id() + ", " + p.tokens() + " tokens, fwd+bwd per step)\n\n"
                + "score = (measured - ideal) x share of the step; ideal: the op's tensor inputs read and as many bytes written at "
                + String.format("%.1f GB/s", bandwidth / 1e9) + " (a bandwidth floor: a GEMM's or attention's FLOP floor is not used here)\n\n```\n"
                + r.text(25) + "```\n");
        List<SourceCandidate> worth = r.worthFixing();
        ex.devlog().decision("ranking of the " + tree.id() + " profile: " + worth.size() + " of " + r.ranked().size() + " (location, op) rows above the stop rule"
                + (worth.isEmpty() ? "" : "; first: " + worth.getFirst().label()));
        ex.done(Step.RANK, List.of(), Map.of(FILE, ex.dir().relativize(md).toString()), worth.size() + " candidates worth fixing"
                + (worth.isEmpty() ? "" : ", first " + worth.getFirst().label()));
        return r;
    }
}
