package gluelab.backend.eager;

import gluelab.tensor.DType;

/**
 * The primitive ops an eager framework launches. Each call appends one pass (one kernel) that
 * reads its inputs and writes a whole output buffer; a device implements them for its buffer
 * type B. {@link EagerChains} composes them into every op's EAGER variant, once for all devices.
 */
public interface EagerOps<B> {
    enum Unary { SQUARE, CUBE, SILU, SIGMOID, ADD_SCALAR, MUL_SCALAR, RSQRT, CAST }

    enum Binary { ADD, SUB, MUL }

    /** An intermediate the eager form materialises; freed when the launch is closed. */
    B scratch(String name, DType dtype, long... shape);

    void unary(Unary op, B in, B out, float scalar);

    void binary(Binary op, B a, B b, B out);

    /** out[r, j] = x[r, j] * v[r] over rows of width n. */
    void mulRows(B x, B v, B out, long n);

    /** out[r, j] = x[r, j] * v[j]. */
    void mulCols(B x, B v, B out, long n);

    /** out[r, j] = v[r] * scale. */
    void expandRows(B v, B out, long n, float scale);

    /** out[r] = scale * sum_j x[r, j]. */
    void sumLast(B x, B out, long n, float scale);

    /** out[j] = sum_r x[r, j]. */
    void sumCols(B x, B out, long n);

    /** out[row, i] = x[row, 2i + parity] * f[row / heads, i]: one product of real-arithmetic RoPE. */
    void ropeProduct(B x, int parity, B f, B out, long heads, long half);

    /** out[2i] = even[i], out[2i + 1] = odd[i]. */
    void interleave(B even, B odd, B out);

    /** Complex product of fp32 pairs x by freqs (broadcast over heads); conj rotates backwards. */
    void complexMul(B x, B freqs, B out, long heads, long half, boolean conj);

    /** silu_backward: out = grad * sigmoid(g) * (1 + g * (1 - sigmoid(g))). */
    void siluBackward(B grad, B g, B out);

    /** fp32 softmax or sigmoid of each row of E logits. */
    void routerScores(B logits, B scores, long experts, boolean softmax);

    /** Top k per row (ties to the lower index): values (fp32) and int64 indices. */
    void topK(B scores, B values, B indices, long experts, long k);

    /** out[r, j] = x[r, j] / v[r]. */
    void divRows(B x, B v, B out, long n);

    /** The framework's generic cat along the last dim. */
    void cat(B a, B b, B out, long widthA, long widthB);
}
