package gluelab.workflow.model;

import gluelab.files.AtomicFiles;
import gluelab.floor.FlopPeak;
import gluelab.model.ModelSpec;
import gluelab.progress.Progress;
import gluelab.torch.ModelProfile;
import gluelab.torch.ModelTree;
import gluelab.torch.TorchBridge;
import gluelab.units.Numbers;
import gluelab.workflow.experiment.ExperimentFolder;
import gluelab.workflow.experiment.ExperimentPlan;
import gluelab.workflow.experiment.ModelSubject;
import gluelab.workflow.experiment.Step;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Step 02 for the analyst's model: each op's floor from the shapes its eager profile recorded (the
 * tensor inputs read and as many bytes written at the calibrated bandwidth; for a GEMM or attention
 * the larger of that and its FLOPs over the peak, as step 04 ranks them), per (source line, op, pass),
 * beside the time the profile measured. The profile is step 03's when it ran; else the eager tree is
 * profiled here (its trace kept in {@code steps/02-ideal-times/}). Kept as {@code model-ideal-times.csv}.
 */
public final class ModelIdealTimesStep {
    public static final String FILE = "model-ideal-times";

    private ModelIdealTimesStep() {}

    /** The floors and the profile they were read from ({@code profiledHere}: step 02 profiled the eager tree itself). */
    public record Result(Table table, ModelProfile profile, boolean profiledHere) {}

    public static Result run(ExperimentFolder ex, TorchBridge bridge, ModelSpec spec, double bandwidth, FlopPeak peak, Progress progress) {
        try (var running = ex.running(Step.IDEAL_TIMES)) {
            ExperimentPlan plan = ex.plan();
            ModelSubject s = plan.modelSubject();
            boolean here = !ex.has(Step.PROFILE_DIFF);
            ModelProfile p = here ? ModelProfile.run(bridge, ModelPlan.entry(ex), ModelPlan.inputs(s, spec, plan.largestTokens()), plan.largestTokens(),
                    List.of(ModelTree.EAGER), List.of(), s.blocks(), ex.stepDir(Step.IDEAL_TIMES), progress) : ModelProfileStep.load(ex);
            ModelProfile.TreeProfile eager = p.tree(ModelTree.EAGER).orElseThrow(() -> new IllegalArgumentException("step 03's profile has no eager tree: run 03-profile-diff again"));
            Table t = table(eager, p.tokens(), bandwidth, peak);
            Path csv = ex.stepDir(Step.IDEAL_TIMES).resolve(FILE + ".csv");
            AtomicFiles.write(csv, t.write().toString("csv"));
            ex.done(Step.IDEAL_TIMES, List.of(), Map.of(FILE, ex.dir().relativize(csv).toString()), Numbers.count(t.rowCount(), "(source line, op, pass) floor") + " of "
                    + ModelPlan.entry(s).shortName() + " at " + Numbers.count(p.tokens(), "token") + " from " + (here ? "an eager profile made by step 02" : "step 03's eager profile")
                    + String.format(java.util.Locale.ROOT, ", %.1f GB/s", bandwidth / 1e9));
            return new Result(t, p, here);
        }
    }

    /**
     * One row per (location, op, pass), summed over calls and shapes, the costliest measured first. A view
     * (transpose, as_strided), an allocation or an autograd node is kind overhead: it moves no data, so its
     * floor is 0 bytes, as step 04 ranks it. An op whose profile recorded no tensor inputs has no floor: its
     * bytes, ideal and pct_of_floor are empty and its note says so; {@code bytes_note} also says where bytes
     * the profile's shapes left out (0-dim tensors, tensor lists) came from ({@link InputBytes}).
     */
    public static Table table(ModelProfile.TreeProfile tree, long tokens, double bandwidth, FlopPeak peak) {
        if (tree.failed()) throw new IllegalArgumentException("the " + tree.tree().id() + " tree's profile failed (" + tree.error() + "): no shapes to give floors");
        if (!(bandwidth > 0)) throw new IllegalArgumentException("bandwidth must be > 0 bytes/s to give ideal times, got " + bandwidth);
        InputBytes inputs = InputBytes.of(tree);
        Map<List<String>, double[]> sums = new LinkedHashMap<>();
        Map<List<String>, String> kinds = new LinkedHashMap<>();
        Map<List<String>, java.util.Set<String>> notes = new LinkedHashMap<>();
        for (ModelProfile.SourceRow r : tree.rows()) {
            List<String> key = List.of(r.location().isEmpty() ? ModelTables.OUTSIDE : r.location(), r.op(), r.pass());
            double[] v = sums.computeIfAbsent(key, k -> new double[6]);
            kinds.putIfAbsent(key, r.kind().name().toLowerCase(java.util.Locale.ROOT));
            InputBytes.Row b = inputs.of(r);
            if (!b.note().isEmpty()) notes.computeIfAbsent(key, k -> new java.util.LinkedHashSet<>()).add(b.note());
            double bytesUs = b.known() ? 2.0 * b.bytes() / bandwidth * 1e6 : Double.NaN, flopUs = r.flops() > 0 ? r.flops() / peak.forDtype(r.dtype()) * 1e6 : 0;
            v[0] += r.calls();
            v[1] += b.known() ? 2.0 * b.bytes() : Double.NaN;  // NaN once any part's bytes are unknown
            v[2] += r.flops() / 1e9;
            v[3] += ModelRankStep.idealUs(r, b, bandwidth, peak);
            v[4] += r.us();
            v[5] += flopUs > bytesUs ? 1 : 0;
        }
        List<Map.Entry<List<String>, double[]>> rows = new ArrayList<>(sums.entrySet());
        rows.sort(Comparator.comparingDouble((Map.Entry<List<String>, double[]> e) -> e.getValue()[4]).reversed());
        Table t = Table.create("ideal times of the eager tree at " + Numbers.count(tokens, "token") + ", fwd+bwd per step").addColumns(StringColumn.create("location"),
                StringColumn.create("op"), StringColumn.create("pass"), StringColumn.create("kind"), IntColumn.create("calls"), LongColumn.create("floor_bytes"),
                DoubleColumn.create("GFLOP"), DoubleColumn.create("ideal_us"), DoubleColumn.create("measured_us"), DoubleColumn.create("pct_of_floor"),
                StringColumn.create("bound"), StringColumn.create("bytes_note"));
        for (var e : rows) {
            double[] v = e.getValue();
            boolean known = !Double.isNaN(v[1]);
            t.stringColumn("location").append(e.getKey().get(0));
            t.stringColumn("op").append(e.getKey().get(1));
            t.stringColumn("pass").append(e.getKey().get(2));
            t.stringColumn("kind").append(kinds.get(e.getKey()));
            t.intColumn("calls").append((int) v[0]);
            if (known) t.longColumn("floor_bytes").append((long) v[1]); else t.longColumn("floor_bytes").appendMissing();
            t.doubleColumn("GFLOP").append(round(v[2], 4));
            t.doubleColumn("ideal_us").append(round(v[3], 3));
            t.doubleColumn("measured_us").append(round(v[4], 1));
            t.doubleColumn("pct_of_floor").append(known && v[4] > 0 ? round(100 * v[3] / v[4], 1) : Double.NaN);
            t.stringColumn("bound").append(!known ? "unknown" : v[5] > 0 ? "flops" : "bytes");
            t.stringColumn("bytes_note").append(String.join("; ", notes.getOrDefault(e.getKey(), java.util.Set.of())));
        }
        return t;
    }

    private static double round(double v, int digits) {
        if (!Double.isFinite(v)) return v;
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
