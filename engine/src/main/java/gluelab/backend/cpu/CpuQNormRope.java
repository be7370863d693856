package gluelab.backend.cpu;

import gluelab.ops.OpId;
import java.util.List;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.ops.Pass;
import gluelab.ops.QNormRope;
import gluelab.tensor.Tensor;

import java.util.Map;

public final class CpuQNormRope implements CpuKernels.OpKernels {
    @Override public List<OpId> ops() { return List.of(OpId.of("qnorm_rope_complex"), OpId.of("qnorm_rope_real")); }

    @Override public Launch fused(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        var s = in.shape();
        long tokens = s.tokens(), heads = s.dim("H"), hd = s.dim("HD"), half = hd / 2, rows = tokens * heads;
        float eps = (float) s.param("eps");
        boolean complex = ((QNormRope) in.op()).form() == QNormRope.Form.COMPLEX;
        Tensor q = t.get("q"), w = t.get("w");
        Tensor freqs = t.get("freqs"), cos = t.get("cos"), sin = t.get("sin");
        Program p = new Program();
        if (in.pass() == Pass.FORWARD) {
            Tensor out = t.get("out");
            p.pass(() -> {
                float[] wv = NormKernels.vector(w);
                int h = (int) hd;
                Primitives.rows(par, rows, h, (row, a, f) -> {
                    long pos = row / heads;
                    q.load(row * hd, a, 0, h);
                    NormKernels.fusedRow(a, wv, a, h, eps);
                    loadFreqs(complex, freqs, cos, sin, pos, half, f);
                    rotate(a, f, (int) half, false, complex);
                    out.store(row * hd, a, 0, h);
                });
            });
            return p;
        }
        Tensor dy = t.get("dy"), dq = t.get("dq"), dw = t.get("dw");
        long chunk = CpuRmsNorm.ROW_CHUNK;
        p.pass(() -> {
            float[] wv = NormKernels.vector(w);
            int h = (int) hd;
            float[][] partials = new float[(int) ((rows + chunk - 1) / chunk)][];
            par.chunks(rows, chunk, (from, to) -> {
                float[] acc = new float[h], x = new float[h], g = new float[h], f = new float[h], dx = new float[h];
                for (long row = from; row < to; row++) {
                    long pos = row / heads;
                    dy.load(row * hd, g, 0, h);
                    loadFreqs(complex, freqs, cos, sin, pos, half, f);
                    rotate(g, f, (int) half, true, complex);
                    q.load(row * hd, x, 0, h);
                    NormKernels.fusedBackwardRow(x, wv, g, dx, acc, h, eps);
                    dq.store(row * hd, dx, 0, h);
                }
                partials[(int) (from / chunk)] = acc;
            });
            NormKernels.storeColumnSum(partials, dw, h);
        });
        return p;
    }

    /** Frequencies of one position: interleaved (cos, sin) pairs for the complex form, cos then sin for the real form. */
    private static void loadFreqs(boolean complex, Tensor freqs, Tensor cos, Tensor sin, long pos, long half, float[] f) {
        int h = (int) half;
        if (complex) {
            freqs.load(pos * 2 * half, f, 0, 2 * h);
            return;
        }
        cos.load(pos * half, f, 0, h);
        sin.load(pos * half, f, h, h);
    }

    /** Rotates interleaved pairs of a by the (cos, sin) pairs in f; inverse rotates backwards. */
    private static void rotate(float[] a, float[] f, int half, boolean inverse, boolean complex) {
        for (int i = 0; i < half; i++) {
            float c = complex ? f[2 * i] : f[i], sn = complex ? f[2 * i + 1] : f[half + i];
            float re = a[2 * i], im = a[2 * i + 1], s = inverse ? -sn : sn;
            a[2 * i] = re * c - im * s;
            a[2 * i + 1] = re * s + im * c;
        }
    }
}
