package gluelab.expr;

import java.util.Locale;

/** The primitives an expression is built from; each one is one kernel when lowered eagerly. */
public enum Op {
    INPUT(Kind.LEAF, 0), PARAM(Kind.LEAF, 0), CONST(Kind.LEAF, 0),
    /** A name bound later with {@link Glue#let}; regions resolve it (and find cycles). */
    REF(Kind.LEAF, 0),
    NEG(Kind.POINTWISE, 1), EXP(Kind.POINTWISE, 1), LOG(Kind.POINTWISE, 1), SQRT(Kind.POINTWISE, 1),
    RSQRT(Kind.POINTWISE, 1), SILU(Kind.POINTWISE, 4), SIGMOID(Kind.POINTWISE, 3), TANH(Kind.POINTWISE, 1),
    POW(Kind.POINTWISE, 1), CAST(Kind.POINTWISE, 0),
    ADD(Kind.POINTWISE, 1), SUB(Kind.POINTWISE, 1), MUL(Kind.POINTWISE, 1), DIV(Kind.POINTWISE, 1),
    GT(Kind.POINTWISE, 1), LT(Kind.POINTWISE, 1), GE(Kind.POINTWISE, 1), LE(Kind.POINTWISE, 1), EQ(Kind.POINTWISE, 1),
    WHERE(Kind.POINTWISE, 1),
    /** A row scalar repeated along a new last dim (the adjoint of a last-dim reduction). */
    BROADCAST(Kind.POINTWISE, 0),
    SUM(Kind.REDUCE, 1), MEAN(Kind.REDUCE, 1), AMAX(Kind.REDUCE, 1),
    /** Every start + step * j of the last dim: halves, even/odd elements. A view: no kernel of its own eagerly. */
    SLICE(Kind.REMAP, 0),
    /** The inverse of a slice: the values at start + step * j of a zero row (a slice's adjoint). */
    SCATTER(Kind.REMAP, 0),
    CAT(Kind.REMAP, 0),
    /** out[2j] = a[j], out[2j+1] = b[j]: even/odd parts back into pairs. */
    INTERLEAVE(Kind.REMAP, 0),
    /** Complex multiply of interleaved (re, im) pairs. */
    CMUL(Kind.REMAP, 3),
    /** Complex conjugate of interleaved pairs (the complex multiply's adjoint). */
    CONJ(Kind.REMAP, 1),
    /** Sum over the row dims the target lacks (a weight's gradient over tokens). */
    SUM_TO(Kind.ROW_REDUCE, 1);

    /** How a primitive reads its operands. */
    public enum Kind { LEAF, POINTWISE, REDUCE, REMAP, ROW_REDUCE }

    private final Kind kind;
    private final int flopsPerElement;

    Op(Kind kind, int flopsPerElement) {
        this.kind = kind;
        this.flopsPerElement = flopsPerElement;
    }

    public Kind kind() { return kind; }

    /** Arithmetic per output element (per input element for reductions), counting a special function as one. */
    public int flopsPerElement() { return flopsPerElement; }

    public boolean isCompare() { return this == GT || this == LT || this == GE || this == LE || this == EQ; }

    public String id() { return name().toLowerCase(Locale.ROOT); }
}
