package gluelab.expr.eval;

import gluelab.expr.Op;

/** What one pointwise primitive computes, in double: the fp64 reference's arithmetic. */
public final class Scalar {
    private Scalar() {}

    public static double apply(Op op, double a, double b, double c, double num) {
        return switch (op) {
            case NEG -> -a;
            case EXP -> Math.exp(a);
            case LOG -> Math.log(a);
            case SQRT -> Math.sqrt(a);
            case RSQRT -> 1.0 / Math.sqrt(a);
            case SIGMOID -> 1.0 / (1.0 + Math.exp(-a));
            case SILU -> a / (1.0 + Math.exp(-a));
            case TANH -> Math.tanh(a);
            case POW -> num == 2 ? a * a : num == 3 ? a * a * a : Math.pow(a, num);
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> a / b;
            case GT -> a > b ? 1 : 0;
            case LT -> a < b ? 1 : 0;
            case GE -> a >= b ? 1 : 0;
            case LE -> a <= b ? 1 : 0;
            case EQ -> a == b ? 1 : 0;
            case WHERE -> a != 0 ? b : c;
            default -> throw new IllegalArgumentException(op + " is not pointwise");
        };
    }
}
