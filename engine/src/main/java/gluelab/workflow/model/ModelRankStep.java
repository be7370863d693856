package gluelab.workflow.model;

import gluelab.files.AtomicFiles;
import gluelab.floor.FlopPeak;
import gluelab.floor.OpKind;
import gluelab.rank.SourceCandidate;
import gluelab.rank.SourceRanking;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.units.Numbers;
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
 * plan's stop rule; kept as {@code steps/04-rank/model-ranking.md}. It times nothing: a busy machine
 * that step 03's quiet check found ({@link StepQuiet}) marks the ranking, whose numbers are step 03's.
 */
public final class ModelRankStep {
    public static final String FILE = "model-ranking";

    private ModelRankStep() {}

    /**
     * The profile's rows summed per (location, op, pass) over input shapes. {@code bandwidth}: bytes per
     * second; an op's bytes floor is its tensor inputs read and as many bytes written at that bandwidth
     * ({@link InputBytes}: the 0-dim tensors and tensor lists the profile's shapes leave out read from the
     * tree's trace); a GEMM's or attention's ideal is the larger of that and its FLOPs over {@code peak} for
     * its dtype. A row whose bytes are unknown has no ideal (NaN): it is listed beside the ranking, not in it.
     */
    public static SourceRanking ranking(ModelProfile.TreeProfile tree, double bandwidth, FlopPeak peak, double stopFraction) {
        if (tree.failed()) throw new IllegalArgumentException("the " + tree.tree().id() + " tree's profile failed (" + tree.error() + "): nothing to rank");
        if (!(bandwidth > 0)) throw new IllegalArgumentException("bandwidth must be > 0 bytes/s to give ideal times, got " + bandwidth);
        InputBytes bytes = InputBytes.of(tree);
        Map<List<String>, double[]> sums = new LinkedHashMap<>();
        Map<List<String>, OpKind> kinds = new LinkedHashMap<>();
        for (ModelProfile.SourceRow r : tree.rows()) {
            List<String> key = List.of(r.location(), r.op(), r.pass());
            double[] s = sums.computeIfAbsent(key, k -> new double[3]);
            kinds.putIfAbsent(key, r.kind());
            s[0] += r.calls();
            s[1] += r.us();
            s[2] += idealUs(r, bytes.of(r), bandwidth, peak);  // NaN once any part's bytes are unknown
        }
        double step = tree.stepUs();
        List<SourceCandidate> out = new ArrayList<>();
        sums.forEach((k, s) -> out.add(new SourceCandidate(k.get(0), k.get(1), k.get(2), "", kinds.get(k), (int) s[0], s[1], s[2], step)));
        return SourceRanking.of(out, stopFraction);
    }

    /** One row's ideal per step in microseconds: the roofline of its bytes floor and, where it has FLOPs, its FLOP floor; NaN when its bytes are unknown. */
    static double idealUs(ModelProfile.SourceRow r, InputBytes.Row bytes, double bandwidth, FlopPeak peak) {
        if (!bytes.known()) return Double.NaN;
        double bytesUs = 2.0 * bytes.bytes() / bandwidth * 1e6;
        double flopUs = r.flops() > 0 ? r.flops() / peak.forDtype(r.dtype()) * 1e6 : 0;
        return Math.max(bytesUs, flopUs);
    }

    /** Step 03's profile of {@code tree}; fails naming the step to run when step 03 has not run or did not profile that tree. */
    public static ModelProfile.TreeProfile profiled(ExperimentFolder ex, ModelTree tree) {
        return ModelProfileStep.load(ex).tree(tree).orElseThrow(() -> new IllegalArgumentException("step 03 did not profile the " + tree.id() + " tree"));
    }

    public static SourceRanking run(ExperimentFolder ex, ModelTree tree, double bandwidth, FlopPeak peak) {
        try (var running = ex.running(Step.RANK)) {
            ModelProfile p = ModelProfileStep.load(ex);
            ModelProfile.TreeProfile t = profiled(ex, tree);
            SourceRanking r = ranking(t, bandwidth, peak, ex.plan().stopFraction());
            String busy = StepQuiet.markOf(ex, Step.PROFILE_DIFF);
            Path md = ex.stepDir(Step.RANK).resolve(FILE + ".md");
            AtomicFiles.write(md, "# Ranking of " + p.model() + " (" + tree.id() + ", " + Numbers.count(p.tokens(), "token") + ", fwd+bwd per step)\n\n"
                    + (busy.isEmpty() ? "" : "**profiled by step 03 on a " + busy + "**\n\n")
                    + "score = (measured - ideal) x share of the step; ideal: the op's tensor inputs read and as many bytes written at "
                    + String.format("%.1f GB/s", bandwidth / 1e9) + "; for a GEMM or attention the larger of that and its FLOPs (torch.utils.flop_counter's count "
                    + "from the recorded shapes) over the peak: " + peak.basis() + ". Only glue is a fix candidate: GEMM and attention rows are shown, marked "
                    + "not glue; views, allocations and autograd nodes move no data (kind overhead, ideal 0). An op whose profile recorded no tensor inputs has "
                    + "no floor (bytes unknown): it is listed after the ranking, not ranked.\n\n```\n"
                    + r.text(25) + "```\n\n" + r.conclusion() + ".\n");
            List<SourceCandidate> worth = r.worthFixing();
            ex.devlog().decision("ranking of the " + tree.id() + " profile: " + worth.size() + " of " + Numbers.count(r.ranked().size(), "(location, op) row") + " glue above the stop rule"
                    + (worth.isEmpty() ? "" : "; first: " + worth.getFirst().label()));
            ex.done(Step.RANK, List.of(), Map.of(FILE, ex.dir().relativize(md).toString()), Numbers.count(worth.size(), "candidate") + " worth fixing"
                    + (worth.isEmpty() ? "" : ", first " + worth.getFirst().label()) + (busy.isEmpty() ? "" : "; step 03 profiled on a " + busy));
            return r;
        }
    }
}
