package gluelab.tensor;

import java.util.Arrays;
import java.util.Locale;

/** Element types a buffer can hold. Floating types are what ops compute on; I32/I64 hold indices. */
public enum DType {
    BF16(2, true), FP16(2, true), FP32(4, true), FP64(8, true), I32(4, false), I64(8, false);

    private final int bytes;
    private final boolean floating;

    DType(int bytes, boolean floating) {
        this.bytes = bytes;
        this.floating = floating;
    }

    public int bytes() { return bytes; }

    public boolean isFloating() { return floating; }

    /** Name as users write it: bf16, fp32, ... */
    @com.fasterxml.jackson.annotation.JsonValue public String id() { return name().toLowerCase(Locale.ROOT); }

    /** Spacing between neighbouring representable values at {@code x} (the unit in the last place). */
    public double ulp(double x) {
        double a = Math.abs(x);
        return switch (this) {
            case BF16 -> a < 0x1p-126 ? 0x1p-133 : Math.ulp((float) a) * 65536.0;
            case FP16 -> a < 0x1p-14 ? 0x1p-24 : Math.ulp((float) a) * 8192.0;
            case FP32 -> Math.ulp((float) a);
            case FP64 -> Math.ulp(a);
            case I32, I64 -> 1.0;
        };
    }

    /** Rounds a double to the nearest value of this type, as storing and loading it would. */
    public double round(double x) {
        return switch (this) {
            case BF16 -> Bf16.toFloat(Bf16.fromFloat((float) x));
            case FP16 -> Float.float16ToFloat(Float.floatToFloat16((float) x));
            case FP32 -> (float) x;
            case FP64 -> x;
            case I32, I64 -> Math.rint(x);
        };
    }

    @com.fasterxml.jackson.annotation.JsonCreator public static DType parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (DType d : values()) {
            if (d.id().equals(t)) return d;
        }
        if (t.equals("bfloat16")) return BF16;
        if (t.equals("half") || t.equals("float16")) return FP16;
        if (t.equals("float") || t.equals("float32")) return FP32;
        if (t.equals("double") || t.equals("float64")) return FP64;
        throw new IllegalArgumentException("unknown dtype '" + text + "'; known: "
                + Arrays.stream(values()).map(DType::id).toList());
    }
}
