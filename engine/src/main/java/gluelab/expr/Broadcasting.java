package gluelab.expr;

import java.util.List;

/** Which shape a pointwise primitive produces from its operands' shapes, or an error naming them. */
final class Broadcasting {
    private Broadcasting() {}

    /**
     * The operand shape every other operand broadcasts to: operands' dims match by name (the last
     * dim also by size); scalars broadcast everywhere.
     */
    static Shape result(Op op, List<Expr> operands) {
        Shape widest = Shape.SCALAR;
        for (Expr e : operands) if (e.shape().rank() > widest.rank()) widest = e.shape();
        for (Expr e : operands) {
            if (!widest.covers(e.shape())) {
                StringBuilder shapes = new StringBuilder();
                for (Expr o : operands) shapes.append(shapes.isEmpty() ? "" : " and ").append(o.describe());
                throw new ExprException(op.id() + " of " + shapes + ": shapes " + e.shape() + " and " + widest
                        + " do not broadcast (dims match by name and size, in order)");
            }
        }
        return widest;
    }
}
