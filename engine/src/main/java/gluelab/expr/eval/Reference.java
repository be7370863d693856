package gluelab.expr.eval;

import gluelab.expr.Expr;
import gluelab.expr.ExprException;
import gluelab.expr.Op;
import gluelab.expr.Region;
import gluelab.expr.Shape;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A region evaluated in fp64 over whole tensors, node by node, with broadcasting done by index
 * arithmetic: independent of the row machinery the eager and fused lowerings share, so it checks
 * them. Explicit casts round (they are part of the math) unless {@code exact} (finite differences).
 */
public final class Reference {
    private final Region region;
    private final boolean exact;

    private Reference(Region region, boolean exact) {
        this.region = region;
        this.exact = exact;
    }

    public static Reference of(Region r) { return new Reference(r, false); }

    /** Every cast ignored: the smooth function finite differences need. */
    public static Reference exact(Region r) { return new Reference(r, true); }

    /** Outputs by name from inputs by name; parameters not given take their defaults. */
    public Map<String, double[]> run(Map<String, double[]> inputs, Map<String, Double> params) {
        Map<Expr, double[]> v = new IdentityHashMap<>();
        for (Expr e : region.nodes()) v.put(e, eval(e, v, inputs, params));
        Map<String, double[]> out = new LinkedHashMap<>();
        region.outputs().forEach((name, e) -> out.put(name, v.get(e).clone()));
        return out;
    }

    public Map<String, double[]> run(Map<String, double[]> inputs) { return run(inputs, Map.of()); }

    private double[] eval(Expr e, Map<Expr, double[]> v, Map<String, double[]> inputs, Map<String, Double> params) {
        Shape s = e.shape();
        int n = (int) s.elements();
        double[] out = new double[n];
        switch (e.op()) {
            case INPUT -> {
                double[] in = inputs.get(e.name());
                if (in == null || in.length != n) throw new ExprException("input '" + e.name() + "' " + s + " needs " + n + " values, got " + (in == null ? "none" : in.length));
                for (int i = 0; i < n; i++) out[i] = exact ? in[i] : e.dtype().round(in[i]);
            }
            case PARAM -> out[0] = params.getOrDefault(e.name(), e.num());
            case CONST -> out[0] = e.num();
            case CAST -> {
                double[] a = v.get(e.arg(0));
                for (int i = 0; i < n; i++) out[i] = exact ? a[i] : e.dtype().round(a[i]);
            }
            case SUM, MEAN, AMAX -> {
                double[] a = v.get(e.arg(0));
                int len = (int) e.arg(0).shape().last().size();
                for (int r = 0; r < n; r++) {
                    double acc = e.op() == Op.AMAX ? Double.NEGATIVE_INFINITY : 0;
                    for (int j = 0; j < len; j++) acc = e.op() == Op.AMAX ? Math.max(acc, a[r * len + j]) : acc + a[r * len + j];
                    out[r] = e.op() == Op.MEAN ? acc / len : acc;
                }
            }
            case BROADCAST -> {
                double[] a = v.get(e.arg(0));
                int len = (int) s.last().size();
                for (int i = 0; i < n; i++) out[i] = a[i / len];
            }
            case SLICE, SCATTER, CAT, INTERLEAVE -> rows(e, v, out);
            case CMUL -> {
                double[] a = v.get(e.arg(0)), b = v.get(e.arg(1));
                int[] ia = Indexing.map(s, e.arg(0).shape()), ib = Indexing.map(s, e.arg(1).shape());
                for (int i = 0; i < n; i += 2) {
                    double ar = a[ia[i]], ai = a[ia[i] + 1], br = b[ib[i]], bi = b[ib[i] + 1];
                    out[i] = ar * br - ai * bi;
                    out[i + 1] = ar * bi + ai * br;
                }
            }
            case CONJ -> {
                double[] a = v.get(e.arg(0));
                for (int i = 0; i < n; i++) out[i] = i % 2 == 0 ? a[i] : -a[i];
            }
            case SUM_TO -> {
                double[] a = v.get(e.arg(0));
                int[] to = Indexing.map(e.arg(0).shape(), s);
                for (int i = 0; i < a.length; i++) out[to[i]] += a[i];
            }
            case REF -> throw new ExprException("unresolved reference " + e.describe());
            default -> {
                int k = e.args().size();
                double[][] a = new double[3][];
                int[][] idx = new int[3][];
                for (int j = 0; j < k; j++) {
                    a[j] = v.get(e.arg(j));
                    idx[j] = Indexing.map(s, e.arg(j).shape());
                }
                for (int i = 0; i < n; i++) {
                    double x = a[0][idx[0][i]], y = k > 1 ? a[1][idx[1][i]] : 0, z = k > 2 ? a[2][idx[2][i]] : 0;
                    out[i] = Scalar.apply(e.op(), x, y, z, e.num());
                }
            }
        }
        return out;
    }

    /** Last-dim rearrangements, row by row (operands share the node's row dims). */
    private static void rows(Expr e, Map<Expr, double[]> v, double[] out) {
        int len = (int) e.shape().last().size(), rows = out.length / len;
        for (int r = 0; r < rows; r++) {
            switch (e.op()) {
                case SLICE -> {
                    double[] a = v.get(e.arg(0));
                    int n = (int) e.arg(0).shape().last().size();
                    for (int j = 0; j < len; j++) out[r * len + j] = a[r * n + e.start() + e.step() * j];
                }
                case SCATTER -> {
                    double[] a = v.get(e.arg(0));
                    int n = (int) e.arg(0).shape().last().size();
                    for (int j = 0; j < n; j++) out[r * len + e.start() + e.step() * j] = a[r * n + j];
                }
                case CAT -> {
                    int at = 0;
                    for (Expr p : e.args()) {
                        double[] a = v.get(p);
                        int n = (int) p.shape().last().size();
                        System.arraycopy(a, r * n, out, r * len + at, n);
                        at += n;
                    }
                }
                case INTERLEAVE -> {
                    double[] a = v.get(e.arg(0)), b = v.get(e.arg(1));
                    int n = len / 2;
                    for (int j = 0; j < n; j++) {
                        out[r * len + 2 * j] = a[r * n + j];
                        out[r * len + 2 * j + 1] = b[r * n + j];
                    }
                }
                default -> throw new IllegalStateException(e.describe());
            }
        }
    }
}
