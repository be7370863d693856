package gluelab.expr.eval;

import gluelab.expr.ExprException;
import gluelab.expr.Shape;

/** Linear indices of a broadcast operand for every element of a wider shape. */
final class Indexing {
    private Indexing() {}

    /** For each element of {@code wide}, the index of the element of {@code part} it reads. */
    static int[] map(Shape wide, Shape part) {
        int n = (int) wide.elements();
        int[] out = new int[n];
        if (part.isScalar()) return out;
        int[] at = wide.embed(part);
        if (at == null) throw new ExprException(part + " does not broadcast to " + wide);
        long[] ws = wide.sizes(), ps = part.sizes();
        long[] contrib = new long[ws.length];
        long stride = 1;
        for (int k = ps.length - 1; k >= 0; k--) {
            contrib[at[k]] = stride;
            stride *= ps[k];
        }
        int[] idx = new int[ws.length];
        long pos = 0;
        for (int i = 0; i < n; i++) {
            out[i] = (int) pos;
            for (int d = ws.length - 1; d >= 0; d--) {
                idx[d]++;
                pos += contrib[d];
                if (idx[d] < ws[d]) break;
                pos -= contrib[d] * ws[d];
                idx[d] = 0;
            }
        }
        return out;
    }
}
