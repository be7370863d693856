package gluelab.tensor;

/** bfloat16 conversions: the upper 16 bits of an IEEE float, rounded to nearest even. */
public final class Bf16 {
    private Bf16() {}

    public static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7fffffff) > 0x7f800000) return (short) ((bits >>> 16) | 0x40); // keep NaN a NaN
        int roundingBias = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + roundingBias) >>> 16);
    }

    public static float toFloat(short b) {
        return Float.intBitsToFloat((b & 0xffff) << 16);
    }
}
