package gluelab.expr;

/** A last dim read as interleaved (re, im) pairs: the view complex RoPE multiplies through. */
public record Pairs(Expr interleaved) {
    public Expr re() { return interleaved.evens(); }

    public Expr im() { return interleaved.odds(); }

    /** Complex multiply, pair by pair; the result is interleaved again. */
    public Expr times(Pairs o) { return interleaved.cmul(o.interleaved); }

    public Expr conj() { return interleaved.conj(); }
}
