package gluelab.expr.workbench;

import gluelab.device.Device;
import gluelab.expr.Expr;
import gluelab.expr.Region;
import gluelab.expr.eval.Reference;
import gluelab.expr.run.Lowering;
import gluelab.expr.run.RegionLaunches;
import gluelab.tensor.DType;
import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Correctness of a region and its backward: eager and fused outputs on a device against the fp64
 * evaluation of the same expression (fused within {@code fusedUlps} units in the last place of the
 * output dtype, one more where the region rounds inside itself: {@link #roundsInside}), and the backward's gradients against central finite differences of the forward
 * (the backward fed the forward's saved outputs, {@link Region#savedOutputs}).
 */
public final class RegionCheck {
    /** One output of one lowering compared with fp64. */
    public record Result(String region, String pass, String lowering, String output, double maxAbsError, double maxUlps, double allowedUlps) {
        public boolean ok() { return maxUlps <= allowedUlps; }
    }

    /** One gradient checked against finite differences. */
    public record GradResult(String region, String input, int probes, double maxRelError) {
        public boolean ok() { return maxRelError < 1e-5; }
    }

    private RegionCheck() {}

    /** Random inputs in [-1, 1] (positive where a log or sqrt needs them is the caller's business), rounded to their dtypes. */
    public static Map<String, double[]> randomInputs(Region r, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<String, double[]> m = new LinkedHashMap<>();
        for (Expr in : r.inputs()) {
            double[] v = new double[(int) in.shape().elements()];
            for (int i = 0; i < v.length; i++) v[i] = in.dtype().round(rnd.nextDouble(-1, 1));
            m.put(in.name(), v);
        }
        return m;
    }

    /** Forward and backward, eager and fused, against fp64. Eager rounds every intermediate, so it is allowed more. */
    public static List<Result> check(Device d, Region forward, double fusedUlps, double eagerUlps, long seed) {
        return check(d, forward, null, fusedUlps, eagerUlps, seed);
    }

    /** The same with a launch configuration for the fused regions (null: the default; one config fits any shape). */
    public static List<Result> check(Device d, Region forward, gluelab.expr.cuda.LaunchConfig config, double fusedUlps, double eagerUlps, long seed) {
        requireSmall(forward);
        List<Result> out = new ArrayList<>();
        Region backward = forward.backward();
        for (Region r : List.of(forward, backward)) {
            String pass = r == forward ? "fwd" : "bwd";
            Map<String, double[]> in = randomInputs(r, seed);
            Map<String, double[]> ref = Reference.of(r).run(in);
            double fused = fusedUlps + (roundsInside(r) ? 1 : 0);
            for (Lowering l : Lowering.values()) {
                Map<String, double[]> got = RegionLaunches.run(d, r, l, config, in, Map.of());
                for (Map.Entry<String, Expr> o : r.outputs().entrySet()) {
                    double[] e = ref.get(o.getKey()), a = got.get(o.getKey());
                    out.add(compare(forward.name(), pass, l.id(), o.getKey(), o.getValue().dtype(), a, e, l == Lowering.FUSED ? fused : eagerUlps));
                }
            }
        }
        return out;
    }

    /**
     * Whether the region rounds inside itself: a cast to a 16-bit float dtype that is not an
     * output (a region joined from two, C = A then B, where A's bf16 output is B's input). The
     * fused region computes that value in fp32 and fp64 computes it exactly; where the two fall on
     * either side of a rounding boundary (about one element in 10^5) the intermediate differs by one
     * of its ulps, which reaches the output: such a region is allowed one ulp more ({@link #check}).
     * The examples keep their intermediates in fp32 (q-norm's result into RoPE:
     * {@link Examples#normalized}) and round once, at their outputs.
     */
    public static boolean roundsInside(Region r) {
        for (Expr e : r.nodes()) {
            if (e.op() == gluelab.expr.Op.CAST && e.dtype().bytes() < 4 && !r.outputs().containsValue(e)) return true;
        }
        return false;
    }

    /**
     * Max error in units of the output dtype's ulp at the reference value; sums (weight gradients)
     * and rotations cancel to near zero, so the ulp is taken no smaller than an eighth of the ulp of the largest value.
     */
    public static Result compare(String region, String pass, String lowering, String output, DType dtype, double[] actual, double[] expected, double allowed) {
        double maxAbs = 0, maxUlps = 0, scale = 0;
        for (double v : expected) scale = Math.max(scale, Math.abs(v));
        for (int i = 0; i < expected.length; i++) {
            double err = Math.abs(actual[i] - expected[i]);
            maxAbs = Math.max(maxAbs, err);
            double ulp = Math.max(dtype.ulp(expected[i]), dtype.ulp(scale) / 8);
            maxUlps = Math.max(maxUlps, err / ulp);
        }
        return new Result(region, pass, lowering, output, maxAbs, maxUlps, allowed);
    }

    /** d(sum of outputs x random weights)/d(input) from the backward vs central differences, at {@code probes} elements per input. */
    public static List<GradResult> gradients(Region forward, int probes, long seed) {
        requireSmall(forward);
        Region backward = forward.backward();
        Map<String, double[]> in = randomInputs(forward, seed);
        SplittableRandom rnd = new SplittableRandom(seed + 1);
        Map<String, double[]> weights = new LinkedHashMap<>();
        forward.outputs().forEach((name, e) -> {
            double[] w = new double[(int) e.shape().elements()];
            for (int i = 0; i < w.length; i++) w[i] = rnd.nextDouble(-1, 1);
            weights.put(name, w);
        });
        Reference f = Reference.exact(forward);
        Map<String, double[]> bwdIn = new LinkedHashMap<>(in);
        weights.forEach((name, w) -> bwdIn.put("d" + name, w));
        Map<String, double[]> outs = f.run(in);
        for (String saved : forward.savedOutputs()) bwdIn.put(saved, outs.get(saved));
        bwdIn.keySet().retainAll(backward.inputs().stream().map(Expr::name).toList());
        Map<String, double[]> grads = Reference.exact(backward).run(bwdIn);
        List<GradResult> out = new ArrayList<>();
        for (Expr x : forward.inputs()) {
            if (!x.requiresGrad()) continue;
            double[] g = grads.get("d" + x.name()), v = in.get(x.name());
            double worst = 0;
            for (int p = 0; p < probes; p++) {
                int i = rnd.nextInt(v.length);
                double keep = v[i], h = 1e-6 * Math.max(1, Math.abs(keep));
                v[i] = keep + h;
                double up = loss(f.run(in), weights);
                v[i] = keep - h;
                double down = loss(f.run(in), weights);
                v[i] = keep;
                double fd = (up - down) / (2 * h);
                worst = Math.max(worst, Math.abs(fd - g[i]) / Math.max(1, Math.abs(fd)));
            }
            out.add(new GradResult(forward.name(), x.name(), probes, worst));
        }
        return out;
    }

    /** The fp64 reference holds every node of the region in host memory: checks are for small token counts. */
    static final long MAX_CHECK_ELEMENTS = 1L << 22;

    private static void requireSmall(Region r) {
        long largest = r.nodes().stream().mapToLong(e -> e.shape().elements()).max().orElse(0);
        if (largest > MAX_CHECK_ELEMENTS) {
            throw new IllegalArgumentException("region '" + r.name() + "' has a node of " + largest + " elements; checks evaluate it in fp64 on the host, "
                    + "so build it at a small token count (e.g. Glue.of(spec, 64)) to check it (limit " + MAX_CHECK_ELEMENTS + " elements)");
        }
    }

    private static double loss(Map<String, double[]> outs, Map<String, double[]> weights) {
        double s = 0;
        for (Map.Entry<String, double[]> o : outs.entrySet()) {
            double[] w = weights.get(o.getKey()), v = o.getValue();
            for (int i = 0; i < v.length; i++) s += v[i] * w[i];
        }
        return s;
    }

    private static final gluelab.table.Column REGION = gluelab.table.Column.text("region", "the region"),
            LOWERING = gluelab.table.Column.text("lowering", "eager or fused"), OUTPUT = gluelab.table.Column.text("output", "the output or gradient compared"),
            MAX_ABS = gluelab.table.Column.number("max_abs_error", "largest absolute error against fp64"),
            MAX_ULPS = gluelab.table.Column.number("max_ulps", "largest error in units of the output dtype's last place").rounded(gluelab.table.Rounding.places(2)),
            ALLOWED = gluelab.table.Column.number("allowed_ulps", "the tolerance: the most ulps a verdict of ok allows");

    /** One row per output, the tolerance ({@code allowed_ulps}) beside the verdict. */
    public static Table table(List<Result> results) {
        var t = gluelab.table.DataTable.builder("correctness vs fp64", REGION, gluelab.table.Columns.PASS, LOWERING, OUTPUT, MAX_ABS, MAX_ULPS, ALLOWED,
                gluelab.table.Columns.VERDICT);
        for (Result r : results) t.row(r.region(), r.pass(), r.lowering(), r.output(), r.maxAbsError(), r.maxUlps(), r.allowedUlps(), r.ok() ? "ok" : "FAIL");
        return gluelab.table.TableFormat.tablesaw(t.build());
    }
}
