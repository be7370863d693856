package gluelab.ops;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.Fill;
import gluelab.tensor.Tensor;
import gluelab.tensor.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * Per-head q RMSNorm followed by rotary embedding of interleaved pairs. The COMPLEX form takes
 * the frequencies as complex64 pairs [T, HD/2, 2] and multiplies q viewed as complex numbers; the
 * REAL form takes cos and sin [T, HD/2] in fp32 and rotates with real arithmetic. Both compute the
 * same function and move the same bytes (workflow pattern 1: complex -> real-arithmetic RoPE).
 */
public class QNormRope implements GlueOp {
    public enum Form { COMPLEX, REAL }

    /** The complex form, as the catalogue's service file names it (ServiceLoader needs a no-argument class). */
    public static final class Complex extends QNormRope { public Complex() { super(Form.COMPLEX); } }

    /** The real form, as the catalogue's service file names it. */
    public static final class Real extends QNormRope { public Real() { super(Form.REAL); } }

    private final Form form;

    public QNormRope(Form form) { this.form = form; }

    public Form form() { return form; }

    @Override public String name() { return form == Form.COMPLEX ? "qnorm_rope_complex" : "qnorm_rope_real"; }

    @Override public String summary() {
        return "per-head q RMSNorm + RoPE, " + (form == Form.COMPLEX ? "complex-number form (view_as_complex * freqs_cis)" : "real-arithmetic form (cos/sin)");
    }

    @Override public OpShape shape(ModelSpec spec, long tokens, DType dtype) {
        return new OpShape(name(), Map.of("T", tokens, "H", (long) spec.heads(), "HD", (long) spec.ropeHeadDim()), dtype,
                Map.of("eps", spec.normEps(), "theta", spec.ropeTheta()));
    }

    @Override public boolean supports(Pass pass) { return true; }

    private List<TensorSpec> freqs(OpShape s) {
        long t = s.tokens(), half = s.dim("HD") / 2;
        return form == Form.COMPLEX
                ? List.of(TensorSpec.of("freqs", DType.FP32, t, half, 2))
                : List.of(TensorSpec.of("cos", DType.FP32, t, half), TensorSpec.of("sin", DType.FP32, t, half));
    }

    @Override public List<TensorSpec> inputs(OpShape s, Pass pass) {
        long t = s.tokens(), width = s.dim("H") * s.dim("HD");
        var list = new java.util.ArrayList<TensorSpec>();
        list.add(TensorSpec.of("q", s.dtype(), t, width));
        list.add(TensorSpec.of("w", s.dtype(), s.dim("HD")));
        list.addAll(freqs(s));
        if (pass == Pass.BACKWARD) list.add(TensorSpec.of("dy", s.dtype(), t, width));
        return List.copyOf(list);
    }

    @Override public List<TensorSpec> outputs(OpShape s, Pass pass) {
        long t = s.tokens(), width = s.dim("H") * s.dim("HD");
        return pass == Pass.FORWARD ? List.of(TensorSpec.of("out", s.dtype(), t, width))
                : List.of(TensorSpec.of("dq", s.dtype(), t, width), TensorSpec.of("dw", s.dtype(), s.dim("HD")));
    }

    @Override public long flops(OpShape s, Pass pass) {
        long n = s.tokens() * s.dim("H") * s.dim("HD");
        return pass == Pass.FORWARD ? 7 * n : 14 * n;
    }


    @Override public void fillInputs(OpShape s, Pass pass, Map<String, Tensor> in, long seed) {
        Fill.uniform(in.get("q"), seed, -2, 2);
        Fill.uniform(in.get("w"), seed + 1, 0.5, 1.5);
        if (in.containsKey("dy")) Fill.uniform(in.get("dy"), seed + 2, -1, 1);
        long t = s.tokens(), half = s.dim("HD") / 2;
        double theta = s.param("theta");
        for (long pos = 0; pos < t; pos++) {
            for (long i = 0; i < half; i++) {
                double angle = pos * Math.pow(theta, -2.0 * i / s.dim("HD"));
                if (form == Form.COMPLEX) {
                    in.get("freqs").set((pos * half + i) * 2, (float) Math.cos(angle));
                    in.get("freqs").set((pos * half + i) * 2 + 1, (float) Math.sin(angle));
                } else {
                    in.get("cos").set(pos * half + i, (float) Math.cos(angle));
                    in.get("sin").set(pos * half + i, (float) Math.sin(angle));
                }
            }
        }
    }

    private static double[][] cosSin(Form form, Map<String, double[]> in, int count) {
        if (form == Form.REAL) return new double[][]{in.get("cos"), in.get("sin")};
        double[] f = in.get("freqs"), c = new double[count], sn = new double[count];
        for (int i = 0; i < count; i++) {
            c[i] = f[2 * i];
            sn[i] = f[2 * i + 1];
        }
        return new double[][]{c, sn};
    }

    @Override public Map<String, double[]> reference(OpShape s, Pass pass, Map<String, double[]> in) {
        int t = (int) s.tokens(), h = (int) s.dim("H"), hd = (int) s.dim("HD"), half = hd / 2;
        double eps = s.param("eps");
        double[][] cs = cosSin(form, in, t * half);
        double[] cos = cs[0], sin = cs[1], q = in.get("q"), w = in.get("w");
        int rows = t * h;
        if (pass == Pass.FORWARD) {
            double[] out = new double[t * h * hd];
            RowNorm.forward(q, w, out, rows, hd, eps);
            for (int row = 0; row < rows; row++) {
                int pos = row / h;
                for (int i = 0; i < half; i++) {
                    int k = row * hd + 2 * i;
                    double a = out[k], b = out[k + 1], c = cos[pos * half + i], sn = sin[pos * half + i];
                    out[k] = a * c - b * sn;
                    out[k + 1] = a * sn + b * c;
                }
            }
            return Map.of("out", out);
        }
        double[] dy = in.get("dy"), dn = new double[dy.length];
        for (int row = 0; row < rows; row++) {
            int pos = row / h;
            for (int i = 0; i < half; i++) {
                int k = row * hd + 2 * i;
                double a = dy[k], b = dy[k + 1], c = cos[pos * half + i], sn = sin[pos * half + i];
                dn[k] = a * c + b * sn;
                dn[k + 1] = -a * sn + b * c;
            }
        }
        double[] dq = new double[dy.length], dw = new double[hd];
        RowNorm.backward(q, w, dn, dq, dw, rows, hd, eps);
        return Map.of("dq", dq, "dw", dw);
    }
}
