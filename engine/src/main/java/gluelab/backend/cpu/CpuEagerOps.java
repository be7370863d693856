package gluelab.backend.cpu;

import gluelab.backend.eager.EagerOps;
import gluelab.tensor.DType;
import gluelab.tensor.Tensor;

/** EagerOps on the CPU: each primitive becomes one pass of a {@link Program}. */
final class CpuEagerOps implements EagerOps<Tensor> {
    private final Program program;
    private final CpuParallel par;

    CpuEagerOps(Program program, CpuParallel par) {
        this.program = program;
        this.par = par;
    }

    @Override public Tensor scratch(String name, DType dtype, long... shape) { return program.scratch(name, dtype, shape); }

    @Override public void unary(Unary op, Tensor in, Tensor out, float s) { program.pass(() -> Primitives.unary(par, op, in, out, s)); }

    @Override public void binary(Binary op, Tensor a, Tensor b, Tensor out) { program.pass(() -> Primitives.binary(par, op, a, b, out)); }

    @Override public void mulRows(Tensor x, Tensor v, Tensor out, long n) { program.pass(() -> Primitives.mulRows(par, x, v, out, n)); }

    @Override public void mulCols(Tensor x, Tensor v, Tensor out, long n) { program.pass(() -> Primitives.mulCols(par, x, v, out, n)); }

    @Override public void expandRows(Tensor v, Tensor out, long n, float scale) { program.pass(() -> Primitives.expandRows(par, v, out, n, scale)); }

    @Override public void sumLast(Tensor x, Tensor out, long n, float scale) { program.pass(() -> Primitives.sumLast(par, x, out, n, scale)); }

    @Override public void sumCols(Tensor x, Tensor out, long n) { program.pass(() -> Primitives.sumCols(par, x, out, n)); }

    @Override public void ropeProduct(Tensor x, int parity, Tensor f, Tensor out, long heads, long half) {
        program.pass(() -> Primitives.ropeProduct(par, x, parity, f, out, heads, half));
    }

    @Override public void interleave(Tensor even, Tensor odd, Tensor out) { program.pass(() -> Primitives.interleave(par, even, odd, out)); }

    @Override public void complexMul(Tensor x, Tensor freqs, Tensor out, long heads, long half, boolean conj) {
        program.pass(() -> Primitives.complexMul(par, x, freqs, out, heads, half, conj));
    }

    @Override public void siluBackward(Tensor grad, Tensor g, Tensor out) { program.pass(() -> Primitives.siluBackward(par, grad, g, out)); }

    @Override public void routerScores(Tensor logits, Tensor scores, long experts, boolean softmax) {
        program.pass(() -> Primitives.routerScores(par, logits, scores, (int) experts, softmax));
    }

    @Override public void topK(Tensor scores, Tensor values, Tensor indices, long experts, long k) {
        program.pass(() -> Primitives.topK(par, scores, values, indices, (int) experts, (int) k));
    }

    @Override public void divRows(Tensor x, Tensor v, Tensor out, long n) { program.pass(() -> Primitives.divRows(par, x, v, out, n)); }

    @Override public void cat(Tensor a, Tensor b, Tensor out, long widthA, long widthB) {
        program.pass(() -> Primitives.cat(par, a, b, out, widthA, widthB));
    }
}
