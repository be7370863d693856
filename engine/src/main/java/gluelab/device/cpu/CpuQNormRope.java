package gluelab.device.cpu;

import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.device.cpu.Primitives.Binary;
import gluelab.device.cpu.Primitives.Unary;
import gluelab.ops.Pass;
import gluelab.ops.QNormRope;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;

import java.util.Map;

final class CpuQNormRope implements CpuKernels.OpKernels {
    @Override public Launch bind(OpInstance in, Map<String, Tensor> t, CpuParallel par) {
        var s = in.shape();
        long tokens = s.tokens(), heads = s.dim("H"), hd = s.dim("HD"), half = hd / 2, rows = tokens * heads;
        float eps = (float) s.param("eps");
        boolean complex = ((QNormRope) in.op()).form() == QNormRope.Form.COMPLEX;
        Tensor q = t.get("q"), w = t.get("w");
        Tensor freqs = t.get("freqs"), cos = t.get("cos"), sin = t.get("sin");
        Program p = new Program();
        DType dt = q.dtype();
        if (in.pass() == Pass.FORWARD) {
            Tensor out = t.get("out");
            if (in.variant() == Variant.EAGER) {
                Tensor normed = p.scratch("normed", dt, rows, hd);
                NormKernels.eagerForward(p, par, q, w, normed, rows, hd, eps);
                if (complex) eagerComplex(p, par, normed, freqs, out, heads, half, false);
                else eagerReal(p, par, normed, cos, sin, out, heads, half, false);
                return p;
            }
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
        if (in.variant() == Variant.EAGER) {
            Tensor dn = p.scratch("dnormed", dt, rows, hd);
            if (complex) eagerComplex(p, par, dy, freqs, dn, heads, half, true);
            else eagerReal(p, par, dy, cos, sin, dn, heads, half, true);
            NormKernels.eagerBackward(p, par, q, w, dn, dq, dw, rows, hd, eps);
            return p;
        }
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

    /** x.float() -> complex multiply -> .type_as(x): 3 passes. */
    private static void eagerComplex(Program p, CpuParallel par, Tensor x, Tensor freqs, Tensor out, long heads, long half, boolean conj) {
        long rows = x.elements() / (2 * half);
        Tensor xf = p.scratch("x_fp32", DType.FP32, rows, 2 * half), rot = p.scratch("rotated_fp32", DType.FP32, rows, 2 * half);
        p.pass(() -> Primitives.unary(par, Unary.CAST, x, xf, 0))
                .pass(() -> Primitives.complexMul(par, xf, freqs, rot, heads, half, conj))
                .pass(() -> Primitives.unary(par, Unary.CAST, rot, out, 0));
    }

    /** Real-arithmetic rotation of interleaved pairs from strided even/odd views: 7 passes. */
    private static void eagerReal(Program p, CpuParallel par, Tensor x, Tensor cos, Tensor sin, Tensor out, long heads, long half, boolean inverse) {
        long rows = x.elements() / (2 * half);
        DType dt = x.dtype();
        Tensor ac = p.scratch("a_cos", dt, rows, half), bs = p.scratch("b_sin", dt, rows, half), even = p.scratch("even", dt, rows, half);
        Tensor as = p.scratch("a_sin", dt, rows, half), bc = p.scratch("b_cos", dt, rows, half), odd = p.scratch("odd", dt, rows, half);
        p.pass(() -> Primitives.ropeProduct(par, x, 0, cos, ac, heads, half))
                .pass(() -> Primitives.ropeProduct(par, x, 1, sin, bs, heads, half))
                .pass(() -> Primitives.binary(par, inverse ? Binary.ADD : Binary.SUB, ac, bs, even))
                .pass(() -> Primitives.ropeProduct(par, x, 0, sin, as, heads, half))
                .pass(() -> Primitives.ropeProduct(par, x, 1, cos, bc, heads, half));
        if (inverse) p.pass(() -> Primitives.binary(par, Binary.SUB, bc, as, odd));
        else p.pass(() -> Primitives.binary(par, Binary.ADD, as, bc, odd));
        p.pass(() -> Primitives.interleave(par, even, odd, out));
    }
}
