package gluelab.expr.cpu;

import gluelab.expr.Op;
import gluelab.tensor.Bf16;
import gluelab.tensor.DType;

/**
 * One pointwise primitive over a row in fp32, as GPU kernels compute. Operands are arrays read
 * with stride 1 (a vector) or 0 (a row value or scalar broadcast along the row). The switch is
 * outside the loops so each loop stays a tight one.
 */
final class RowMath {
    private RowMath() {}

    static void pointwise(Op op, float[] out, int n, float[] a, int sa, float[] b, int sb, float[] c, int sc, float k) {
        switch (op) {
            case NEG -> { for (int i = 0; i < n; i++) out[i] = -a[i * sa]; }
            case EXP -> { for (int i = 0; i < n; i++) out[i] = (float) Math.exp(a[i * sa]); }
            case LOG -> { for (int i = 0; i < n; i++) out[i] = (float) Math.log(a[i * sa]); }
            case SQRT -> { for (int i = 0; i < n; i++) out[i] = (float) Math.sqrt(a[i * sa]); }
            case RSQRT -> { for (int i = 0; i < n; i++) out[i] = (float) (1.0 / Math.sqrt(a[i * sa])); }
            case SIGMOID -> { for (int i = 0; i < n; i++) out[i] = (float) (1.0 / (1.0 + Math.exp(-a[i * sa]))); }
            case SILU -> { for (int i = 0; i < n; i++) { float x = a[i * sa]; out[i] = (float) (x / (1.0 + Math.exp(-x))); } }
            case TANH -> { for (int i = 0; i < n; i++) out[i] = (float) Math.tanh(a[i * sa]); }
            case POW -> {
                if (k == 2) { for (int i = 0; i < n; i++) { float x = a[i * sa]; out[i] = x * x; } }
                else if (k == 3) { for (int i = 0; i < n; i++) { float x = a[i * sa]; out[i] = x * x * x; } }
                else { for (int i = 0; i < n; i++) out[i] = (float) Math.pow(a[i * sa], k); }
            }
            case ADD -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] + b[i * sb]; }
            case SUB -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] - b[i * sb]; }
            case MUL -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] * b[i * sb]; }
            case DIV -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] / b[i * sb]; }
            case GT -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] > b[i * sb] ? 1 : 0; }
            case LT -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] < b[i * sb] ? 1 : 0; }
            case GE -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] >= b[i * sb] ? 1 : 0; }
            case LE -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] <= b[i * sb] ? 1 : 0; }
            case EQ -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] == b[i * sb] ? 1 : 0; }
            case WHERE -> { for (int i = 0; i < n; i++) out[i] = a[i * sa] != 0 ? b[i * sb] : c[i * sc]; }
            case BROADCAST -> { for (int i = 0; i < n; i++) out[i] = a[i * sa]; }
            default -> throw new IllegalArgumentException(op + " is not pointwise");
        }
    }

    static void round(DType to, float[] out, int n, float[] a, int sa) {
        for (int i = 0; i < n; i++) {
            float x = a[i * sa];
            out[i] = switch (to) {
                case BF16 -> Bf16.toFloat(Bf16.fromFloat(x));
                case FP16 -> Float.float16ToFloat(Float.floatToFloat16(x));
                default -> x;
            };
        }
    }
}
