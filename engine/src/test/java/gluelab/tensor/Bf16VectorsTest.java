package gluelab.tensor;

import jdk.incubator.vector.IntVector;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/** The vector conversions against the scalar {@link Bf16} ones, bit for bit, on every kind of float. */
class Bf16VectorsTest {
    /** Ties (both parities), values that round up into the next binade or to infinity, signed zeros, subnormals, infinities and NaNs. */
    static float[] hardValues(int n) {
        int[] special = {0x3f808000, 0x3f818000, 0x3f80ffff, 0x3f7fffff, 0xbf808000, 0xbf818000, 0x7f7fffff, 0xff7fffff,
                0x7f7f8000, 0x00000000, 0x80000000, 0x00000001, 0x80008000, 0x007fffff, 0x7f800000, 0xff800000,
                0x7fc00000, 0x7f800001, 0x7fffffff, 0xffffffff, 0xff800001, 0x7fbfffff, 0x3f800000, 0x40490fdb};
        float[] out = new float[n];
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < n; i++) {
            out[i] = i < special.length ? Float.intBitsToFloat(special[i]) : Float.intBitsToFloat(random.nextInt());
        }
        return out;
    }

    @Test
    void bulkStoreAndLoadMatchTheScalarConversionsBitForBit() {
        assertTrue(Tensor.VECTOR_API, "the tests run with --add-modules jdk.incubator.vector");
        int n = 1000 + 13; // a tail after the vector steps
        float[] values = hardValues(n);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(2L * n + 2);
            Bf16Vectors.store(values, 0, seg, 1, n - 1);
            for (int i = 1; i < n; i++) {
                assertEquals(Bf16.fromFloat(values[i - 1]), seg.getAtIndex(Tensor.SHORT, i), "element " + i + " from " + Integer.toHexString(Float.floatToRawIntBits(values[i - 1])));
            }
            float[] back = new float[n];
            Bf16Vectors.load(seg, 1, back, 1, n - 1);
            for (int i = 1; i < n; i++) {
                assertEquals(Float.floatToRawIntBits(Bf16.toFloat(seg.getAtIndex(Tensor.SHORT, i))), Float.floatToRawIntBits(back[i]), "element " + i);
            }
        }
    }

    @Test
    void pairsRoundTripEvenAndOddElementsBitForBit() {
        int step = Bf16Vectors.PAIR_ELEMENTS, half = step / 2;
        float[] values = hardValues(4 * step);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(2L * values.length), dst = arena.allocate(2L * values.length);
            for (int i = 0; i < values.length; i++) src.setAtIndex(Tensor.SHORT, i, Bf16.fromFloat(values[i]));
            for (int s = 0; s < values.length; s += step) {
                IntVector p = Bf16Vectors.loadPairs(src, s);
                float[] even = Bf16Vectors.even(p).toArray(), odd = Bf16Vectors.odd(p).toArray();
                for (int k = 0; k < half; k++) {
                    assertEquals(Float.floatToRawIntBits(Bf16.toFloat(src.getAtIndex(Tensor.SHORT, s + 2 * k))), Float.floatToRawIntBits(even[k]));
                    assertEquals(Float.floatToRawIntBits(Bf16.toFloat(src.getAtIndex(Tensor.SHORT, s + 2 * k + 1))), Float.floatToRawIntBits(odd[k]));
                }
                // Narrowing: the raw floats (not yet bf16) rounded as the scalar rule does.
                float[] e = new float[half], o = new float[half];
                for (int k = 0; k < half; k++) {
                    e[k] = values[s + 2 * k];
                    o[k] = values[s + 2 * k + 1];
                }
                Bf16Vectors.storePairs(jdk.incubator.vector.FloatVector.fromArray(Bf16Vectors.FLOATS, e, 0),
                        jdk.incubator.vector.FloatVector.fromArray(Bf16Vectors.FLOATS, o, 0), dst, s);
            }
            for (int i = 0; i < values.length; i++) {
                assertEquals(Bf16.fromFloat(values[i]), dst.getAtIndex(Tensor.SHORT, i), "element " + i + " from " + Integer.toHexString(Float.floatToRawIntBits(values[i])));
            }
        }
    }
}
