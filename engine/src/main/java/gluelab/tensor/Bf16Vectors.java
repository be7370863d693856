package gluelab.tensor;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * bf16 to and from float a whole SIMD vector at a time (jdk.incubator.vector), straight on
 * off-heap memory: shorts widened and shifted into the upper half of an int (exact), floats
 * narrowed with the same round-to-nearest-even and NaN rule as {@link Bf16#fromFloat}, so results
 * are bit-identical to the scalar loops. Use only when {@link Tensor#VECTOR_API} is true (the JVM
 * has the module); element indices, not byte offsets, throughout.
 */
public final class Bf16Vectors {
    /** The float lanes of one step (the CPU's widest vector). */
    public static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> INTS = FLOATS.withLanes(int.class);
    /** As many short lanes as FLOATS has float lanes (half the bits). */
    private static final VectorSpecies<Short> SHORTS = VectorSpecies.of(short.class, VectorShape.forBitSize(FLOATS.vectorBitSize() / 2));
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private Bf16Vectors() {}

    /** The FLOATS.length() bf16 values from element {@code index} of seg, as floats. */
    public static FloatVector load(MemorySegment seg, long index) {
        ShortVector s = ShortVector.fromMemorySegment(SHORTS, seg, 2 * index, ORDER);
        // Sign extension fills the upper half, which the shift discards.
        return ((IntVector) s.convertShape(VectorOperators.S2I, INTS, 0)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    /** v rounded to bf16 (nearest even; a NaN stays a NaN) at element {@code index} of seg. */
    public static void store(FloatVector v, MemorySegment seg, long index) {
        IntVector bits = v.reinterpretAsInts();
        IntVector upper = bits.lanewise(VectorOperators.LSHR, 16);
        IntVector rounded = bits.add(upper.and(1)).add(0x7fff).lanewise(VectorOperators.LSHR, 16);
        IntVector out = rounded.blend(upper.or(0x40), bits.and(0x7fffffff).compare(VectorOperators.GT, 0x7f800000));
        ((ShortVector) out.convertShape(VectorOperators.I2S, SHORTS, 0)).intoMemorySegment(seg, 2 * index, ORDER);
    }

    /** The int lanes that hold two bf16 values each: {@link #PAIR_ELEMENTS} elements per step. */
    public static final VectorSpecies<Integer> PAIRS = INTS;
    public static final int PAIR_ELEMENTS = 2 * PAIRS.length();

    /**
     * The PAIR_ELEMENTS bf16 values from element {@code index} of seg, two to an int lane (the lower
     * address in the lower half, as memory is little-endian); {@link #even} and {@link #odd} widen them.
     * Loops that work on pairs need no lane shuffles, the costly part of widening and narrowing.
     */
    public static IntVector loadPairs(MemorySegment seg, long index) { return IntVector.fromMemorySegment(PAIRS, seg, 2 * index, ORDER); }

    /** Elements index, index + 2, ... of a {@link #loadPairs} load, as floats. */
    public static FloatVector even(IntVector pairs) { return pairs.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats(); }

    /** Elements index + 1, index + 3, ... of a {@link #loadPairs} load, as floats. */
    public static FloatVector odd(IntVector pairs) { return pairs.and(0xffff0000).reinterpretAsFloats(); }

    /** The inverse of {@link #loadPairs}: even and odd elements rounded to bf16 and interleaved at element {@code index}. */
    public static void storePairs(FloatVector even, FloatVector odd, MemorySegment seg, long index) {
        // The shift drops the even half's low bits, so only the odd half needs the mask.
        rounded(even).lanewise(VectorOperators.LSHR, 16).or(rounded(odd).and(0xffff0000)).intoMemorySegment(seg, 2 * index, ORDER);
    }

    /** v rounded to bf16 in the upper half of each int lane (nearest even; a NaN stays a NaN), junk below. */
    private static IntVector rounded(FloatVector v) {
        // Scalar operands, not vector constants: C2 hoists their broadcasts out of the loop, where a
        // constant IntVector is loaded from its box at every use (measured: a bf16 copy 1.6x slower).
        IntVector bits = v.reinterpretAsInts();
        IntVector rounded = bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).add(0x7fff);
        return rounded.blend(bits.or(0x400000), bits.and(0x7fffffff).compare(VectorOperators.GT, 0x7f800000));
    }

    /** One bf16 value (the scalar tails of the loops). */
    public static float get(MemorySegment seg, long index) { return Bf16.toFloat(seg.getAtIndex(Tensor.SHORT, index)); }

    public static void set(MemorySegment seg, long index, float v) { seg.setAtIndex(Tensor.SHORT, index, Bf16.fromFloat(v)); }

    /** dst[off..off+n) = the n bf16 values from element {@code index} of seg. */
    static void load(MemorySegment seg, long index, float[] dst, int off, int n) {
        int i = 0;
        for (int bound = FLOATS.loopBound(n); i < bound; i += FLOATS.length()) load(seg, index + i).intoArray(dst, off + i);
        for (; i < n; i++) dst[off + i] = get(seg, index + i);
    }

    /** src[off..off+n) rounded to bf16 at element {@code index} of seg. */
    static void store(float[] src, int off, MemorySegment seg, long index, int n) {
        int i = 0;
        for (int bound = FLOATS.loopBound(n); i < bound; i += FLOATS.length()) store(FloatVector.fromArray(FLOATS, src, off + i), seg, index + i);
        for (; i < n; i++) set(seg, index + i, src[off + i]);
    }
}
