package gluelab.backend.cpu;

import gluelab.backend.eager.EagerOps.Binary;
import gluelab.backend.eager.EagerOps.Unary;
import gluelab.tensor.Tensor;

/**
 * The CPU's primitive passes (see {@link gluelab.backend.eager.EagerOps}), plus the block and row
 * loops the fused kernels share.
 * Data moves in blocks between memory and float arrays (fp32 compute, as GPU frameworks do).
 */
final class Primitives {
    private Primitives() {}

    static final int BLOCK = 8192;

    /** Runs body over [0, n) in blocks of at most BLOCK elements. */
    interface BlockBody {
        void run(long start, int len, float[] a, float[] b, float[] c, float[] d);
    }

    static void blocks(CpuParallel par, long n, BlockBody body) { blocks(par, n, BLOCK, body); }

    /** As {@link #blocks(CpuParallel, long, BlockBody)} with blocks of {@code block} elements (a tunable size). */
    static void blocks(CpuParallel par, long n, int block, BlockBody body) {
        long count = (n + block - 1) / block;
        par.range(count, 1, (from, to) -> {
            float[] a = new float[block], b = new float[block], c = new float[block], d = new float[block];
            for (long blk = from; blk < to; blk++) {
                long start = blk * block;
                body.run(start, (int) Math.min(block, n - start), a, b, c, d);
            }
        });
    }

    /** Runs body over rows [0, rows) with a row-sized scratch array per worker. */
    interface RowBody {
        void run(long row, float[] a, float[] b);
    }

    static void rows(CpuParallel par, long rows, int width, RowBody body) { rows(par, rows, width, Math.max(1, BLOCK / width), body); }

    /** As {@link #rows(CpuParallel, long, int, RowBody)} with at least {@code grain} rows per task (a tunable size). */
    static void rows(CpuParallel par, long rows, int width, int grain, RowBody body) {
        par.range(rows, grain, (from, to) -> {
            float[] a = new float[width], b = new float[width];
            for (long r = from; r < to; r++) body.run(r, a, b);
        });
    }

    static void unary(CpuParallel par, Unary op, Tensor in, Tensor out, float s) {
        blocks(par, in.elements(), (start, len, a, b, c, d) -> {
            in.load(start, a, 0, len);
            switch (op) {
                case SQUARE -> { for (int i = 0; i < len; i++) a[i] = a[i] * a[i]; }
                case CUBE -> { for (int i = 0; i < len; i++) a[i] = a[i] * a[i] * a[i]; }
                case SILU -> { for (int i = 0; i < len; i++) a[i] = a[i] / (1f + (float) Math.exp(-a[i])); }
                case SIGMOID -> { for (int i = 0; i < len; i++) a[i] = 1f / (1f + (float) Math.exp(-a[i])); }
                case ADD_SCALAR -> { for (int i = 0; i < len; i++) a[i] = a[i] + s; }
                case MUL_SCALAR -> { for (int i = 0; i < len; i++) a[i] = a[i] * s; }
                case RSQRT -> { for (int i = 0; i < len; i++) a[i] = (float) (1.0 / Math.sqrt(a[i])); }
                case CAST -> { }
            }
            out.store(start, a, 0, len);
        });
    }

    static void binary(CpuParallel par, Binary op, Tensor x, Tensor y, Tensor out) {
        blocks(par, x.elements(), (start, len, a, b, c, d) -> {
            x.load(start, a, 0, len);
            y.load(start, b, 0, len);
            switch (op) {
                case ADD -> { for (int i = 0; i < len; i++) a[i] += b[i]; }
                case SUB -> { for (int i = 0; i < len; i++) a[i] -= b[i]; }
                case MUL -> { for (int i = 0; i < len; i++) a[i] *= b[i]; }
            }
            out.store(start, a, 0, len);
        });
    }

    /** out[r, j] = x[r, j] * v[r]: a per-row scalar broadcast over rows of width n. */
    static void mulRows(CpuParallel par, Tensor x, Tensor v, Tensor out, long n) {
        rows(par, x.elements() / n, (int) n, (r, a, b) -> {
            float s = v.get(r);
            x.load(r * n, a, 0, (int) n);
            for (int j = 0; j < n; j++) a[j] *= s;
            out.store(r * n, a, 0, (int) n);
        });
    }

    /** out[r, j] = x[r, j] * v[j]: a vector broadcast down the rows. */
    static void mulCols(CpuParallel par, Tensor x, Tensor v, Tensor out, long n) {
        float[] w = new float[(int) n];
        v.load(0, w, 0, (int) n);
        rows(par, x.elements() / n, (int) n, (r, a, b) -> {
            x.load(r * n, a, 0, (int) n);
            for (int j = 0; j < n; j++) a[j] *= w[j];
            out.store(r * n, a, 0, (int) n);
        });
    }

    /** out[r, j] = v[r] * scale (expand of a per-row value). */
    static void expandRows(CpuParallel par, Tensor v, Tensor out, long n, float scale) {
        rows(par, out.elements() / n, (int) n, (r, a, b) -> {
            java.util.Arrays.fill(a, v.get(r) * scale);
            out.store(r * n, a, 0, (int) n);
        });
    }

    /** out[r] = sum_j x[r, j] * scale. */
    static void sumLast(CpuParallel par, Tensor x, Tensor out, long n, float scale) {
        rows(par, x.elements() / n, (int) n, (r, a, b) -> {
            x.load(r * n, a, 0, (int) n);
            float acc = 0;
            for (int j = 0; j < n; j++) acc += a[j];
            out.set(r, acc * scale);
        });
    }

    /** out[j] = sum_r x[r, j], reduced over fixed row chunks so the result does not depend on thread count. */
    static void sumCols(CpuParallel par, Tensor x, Tensor out, long n) {
        long rows = x.elements() / n;
        long chunk = CpuRmsNorm.ROW_CHUNK;
        float[][] partial = new float[(int) ((rows + chunk - 1) / chunk)][];
        par.chunks(rows, chunk, (from, to) -> {
            float[] acc = new float[(int) n], a = new float[(int) n];
            for (long r = from; r < to; r++) {
                x.load(r * n, a, 0, (int) n);
                for (int j = 0; j < n; j++) acc[j] += a[j];
            }
            partial[(int) (from / chunk)] = acc;
        });
        NormKernels.storeColumnSum(partial, out, (int) n);
    }

    /**
     * One real-arithmetic RoPE product: out[row, i] = x[row, 2i + parity] * f[pos, i], with
     * pos = row / heads. Reads the strided even or odd view of x, as x[..., 0::2] would.
     */
    static void ropeProduct(CpuParallel par, Tensor x, int parity, Tensor f, Tensor out, long heads, long half) {
        int h = (int) half;
        rows(par, out.elements() / half, 2 * h, (row, a, b) -> {
            x.load(row * 2 * half, a, 0, 2 * h);
            f.load(row / heads * half, b, 0, h);
            for (int i = 0; i < h; i++) b[i] *= a[2 * i + parity];
            out.store(row * half, b, 0, h);
        });
    }

    /** out[..., 2i] = even[..., i]; out[..., 2i + 1] = odd[..., i] (torch.stack(..., -1).flatten). */
    static void interleave(CpuParallel par, Tensor even, Tensor odd, Tensor out) {
        long n = even.elements();
        long count = (n + BLOCK / 2 - 1) / (BLOCK / 2);
        par.range(count, 1, (from, to) -> {
            float[] e = new float[BLOCK / 2], o = new float[BLOCK / 2], w = new float[BLOCK];
            for (long blk = from; blk < to; blk++) {
                long start = blk * (BLOCK / 2);
                int len = (int) Math.min(BLOCK / 2, n - start);
                even.load(start, e, 0, len);
                odd.load(start, o, 0, len);
                for (int i = 0; i < len; i++) {
                    w[2 * i] = e[i];
                    w[2 * i + 1] = o[i];
                }
                out.store(2 * start, w, 0, 2 * len);
            }
        });
    }

    /** Complex multiply of x (pairs) by freqs (pairs, broadcast over heads); conj rotates backwards. */
    static void complexMul(CpuParallel par, Tensor x, Tensor freqs, Tensor out, long heads, long half, boolean conj) {
        int w = (int) (2 * half);
        rows(par, x.elements() / w, w, (row, a, f) -> {
            x.load(row * w, a, 0, w);
            freqs.load(row / heads * w, f, 0, w);
            for (int i = 0; i < half; i++) {
                float re = a[2 * i], im = a[2 * i + 1], c = f[2 * i], s = conj ? -f[2 * i + 1] : f[2 * i + 1];
                a[2 * i] = re * c - im * s;
                a[2 * i + 1] = re * s + im * c;
            }
            out.store(row * w, a, 0, w);
        });
    }

    static void siluBackward(CpuParallel par, Tensor grad, Tensor g, Tensor out) {
        blocks(par, g.elements(), (start, len, a, b, c, d) -> {
            grad.load(start, a, 0, len);
            g.load(start, b, 0, len);
            for (int i = 0; i < len; i++) {
                float sg = 1f / (1f + (float) Math.exp(-b[i]));
                a[i] = a[i] * sg * (1 + b[i] * (1 - sg));
            }
            out.store(start, a, 0, len);
        });
    }

    /** Softmax (max-subtracted) or sigmoid of a row of e logits, in place. */
    static void score(float[] a, int e, boolean softmax) {
        if (!softmax) {
            for (int j = 0; j < e; j++) a[j] = 1f / (1f + (float) Math.exp(-a[j]));
            return;
        }
        float max = Float.NEGATIVE_INFINITY, sum = 0;
        for (int j = 0; j < e; j++) max = Math.max(max, a[j]);
        for (int j = 0; j < e; j++) {
            a[j] = (float) Math.exp(a[j] - max);
            sum += a[j];
        }
        for (int j = 0; j < e; j++) a[j] /= sum;
    }

    /** Top k of scores[0..e) into values[0..k) and the index tensor's row; ties go to the lower index. */
    static void topKRow(float[] scores, int e, int k, float[] values, Tensor indices, long row) {
        boolean[] taken = new boolean[e];
        for (int slot = 0; slot < k; slot++) {
            int best = -1;
            for (int j = 0; j < e; j++) if (!taken[j] && (best < 0 || scores[j] > scores[best])) best = j;
            taken[best] = true;
            indices.setDouble(row * k + slot, best);
            values[slot] = scores[best];
        }
    }

    static void routerScores(CpuParallel par, Tensor logits, Tensor scores, int e, boolean softmax) {
        rows(par, logits.elements() / e, e, (row, a, b) -> {
            logits.load(row * e, a, 0, e);
            score(a, e, softmax);
            scores.store(row * e, a, 0, e);
        });
    }

    static void topK(CpuParallel par, Tensor scores, Tensor values, Tensor indices, int e, int k) {
        rows(par, scores.elements() / e, Math.max(e, k), (row, a, b) -> {
            scores.load(row * e, a, 0, e);
            topKRow(a, e, k, b, indices, row);
            values.store(row * k, b, 0, k);
        });
    }

    static void divRows(CpuParallel par, Tensor x, Tensor v, Tensor out, long n) {
        rows(par, x.elements() / n, (int) n, (r, a, b) -> {
            x.load(r * n, a, 0, (int) n);
            float s = v.get(r);
            for (int j = 0; j < n; j++) a[j] /= s;
            out.store(r * n, a, 0, (int) n);
        });
    }

    /** The framework's generic cat: each input converted through fp32 registers into the output. */
    static void cat(CpuParallel par, Tensor a, Tensor b, Tensor out, long ha, long hb) {
        long d = ha + hb;
        rows(par, out.elements() / d, (int) d, (row, x, unused) -> {
            a.load(row * ha, x, 0, (int) ha);
            b.load(row * hb, x, (int) ha, (int) hb);
            out.store(row * d, x, 0, (int) d);
        });
    }
}
