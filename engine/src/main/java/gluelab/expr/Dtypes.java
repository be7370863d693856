package gluelab.expr;

import gluelab.tensor.DType;

import java.util.EnumSet;
import java.util.Set;

/** Which dtypes expressions hold and how mixed operands promote (scalars never promote, as in PyTorch). */
public final class Dtypes {
    public static final Set<DType> SUPPORTED = EnumSet.of(DType.BF16, DType.FP16, DType.FP32);

    private Dtypes() {}

    static void requireSupported(DType d, String what) {
        if (!SUPPORTED.contains(d)) {
            throw new ExprException(what + ": dtype " + d.id() + " is not supported in expressions; use one of bf16, fp16, fp32");
        }
    }

    static DType promote(Expr a, Expr b) {
        if (a.isScalar() && !b.isScalar()) return b.dtype();
        if (b.isScalar() && !a.isScalar()) return a.dtype();
        return promote(a.dtype(), b.dtype());
    }

    static DType promote(DType a, DType b) {
        if (a == b) return a;
        return DType.FP32;
    }
}
