package gluelab.expr;

/** A bad expression: names the node and the shapes involved; raised before anything compiles. */
public final class ExprException extends IllegalArgumentException {
    public ExprException(String message) { super(message); }
}
