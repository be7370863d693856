package gluelab.tensor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A tensor in host memory, off the Java heap. Elements are stored in their dtype's encoding and
 * read or written as float/double, which is how CPU kernels compute (fp32 accumulate, as GPUs do).
 */
public final class Tensor implements AutoCloseable {
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** True when the JVM runs with jdk.incubator.vector: bf16 bulk loads and stores then convert whole SIMD vectors. */
    public static final boolean VECTOR_API = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    private final TensorSpec spec;
    private final DType dtype;
    private final Arena arena;
    private final MemorySegment data;

    private Tensor(TensorSpec spec, Arena arena, MemorySegment data) {
        this.spec = spec;
        this.dtype = spec.dtype();
        this.arena = arena;
        this.data = data;
    }

    /** Allocates zeroed off-heap memory for {@code spec}; {@link #close()} frees it. */
    public static Tensor allocate(TensorSpec spec) {
        Arena arena = Arena.ofShared();
        try {
            return new Tensor(spec, arena, arena.allocate(spec.bytes(), 64));
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            throw new IllegalStateException("cannot allocate " + spec + " (" + spec.bytes() + " bytes): " + e.getMessage(), e);
        }
    }

    public TensorSpec spec() { return spec; }

    public DType dtype() { return dtype; }

    public MemorySegment segment() { return data; }

    public long elements() { return spec.elements(); }

    public float get(long i) {
        return switch (dtype) {
            case BF16 -> Float.intBitsToFloat((data.getAtIndex(SHORT, i) & 0xffff) << 16);
            case FP16 -> Float.float16ToFloat(data.getAtIndex(SHORT, i));
            case FP32 -> data.getAtIndex(FLOAT, i);
            case FP64 -> (float) data.getAtIndex(DOUBLE, i);
            case I32 -> data.getAtIndex(INT, i);
            case I64 -> data.getAtIndex(LONG, i);
        };
    }

    public void set(long i, float v) {
        switch (dtype) {
            case BF16 -> data.setAtIndex(SHORT, i, Bf16.fromFloat(v));
            case FP16 -> data.setAtIndex(SHORT, i, Float.floatToFloat16(v));
            case FP32 -> data.setAtIndex(FLOAT, i, v);
            case FP64 -> data.setAtIndex(DOUBLE, i, v);
            case I32 -> data.setAtIndex(INT, i, (int) v);
            case I64 -> data.setAtIndex(LONG, i, (long) v);
        }
    }

    private static final ThreadLocal<short[]> SHORTS = ThreadLocal.withInitial(() -> new short[4096]);

    private static short[] shorts(int n) {
        short[] s = SHORTS.get();
        if (s.length < n) {
            s = new short[Math.max(n, 2 * s.length)];
            SHORTS.set(s);
        }
        return s;
    }

    /** Bulk read of n elements from element {@code index} into dst[off..], converted to float. */
    public void load(long index, float[] dst, int off, int n) {
        switch (dtype) {
            case FP32 -> MemorySegment.copy(data, FLOAT, index * 4, dst, off, n);
            case BF16 -> {
                if (VECTOR_API) {
                    Bf16Vectors.load(data, index, dst, off, n);
                    return;
                }
                short[] tmp = shorts(n);
                MemorySegment.copy(data, SHORT, index * 2, tmp, 0, n);
                for (int i = 0; i < n; i++) dst[off + i] = Float.intBitsToFloat((tmp[i] & 0xffff) << 16);
            }
            case FP16 -> {
                short[] tmp = shorts(n);
                MemorySegment.copy(data, SHORT, index * 2, tmp, 0, n);
                for (int i = 0; i < n; i++) dst[off + i] = Float.float16ToFloat(tmp[i]);
            }
            default -> {
                for (int i = 0; i < n; i++) dst[off + i] = get(index + i);
            }
        }
    }

    /** Bulk write of src[off..off+n) to elements from {@code index}, rounded to this dtype. */
    public void store(long index, float[] src, int off, int n) {
        switch (dtype) {
            case FP32 -> MemorySegment.copy(src, off, data, FLOAT, index * 4, n);
            case BF16 -> {
                if (VECTOR_API) {
                    Bf16Vectors.store(src, off, data, index, n);
                    return;
                }
                short[] tmp = shorts(n);
                for (int i = 0; i < n; i++) {
                    int bits = Float.floatToRawIntBits(src[off + i]);
                    tmp[i] = (bits & 0x7fffffff) > 0x7f800000 ? (short) ((bits >>> 16) | 0x40)
                            : (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
                }
                MemorySegment.copy(tmp, 0, data, SHORT, index * 2, n);
            }
            case FP16 -> {
                short[] tmp = shorts(n);
                for (int i = 0; i < n; i++) tmp[i] = Float.floatToFloat16(src[off + i]);
                MemorySegment.copy(tmp, 0, data, SHORT, index * 2, n);
            }
            default -> {
                for (int i = 0; i < n; i++) set(index + i, src[off + i]);
            }
        }
    }

    public double getDouble(long i) {
        return switch (dtype) {
            case FP64 -> data.getAtIndex(DOUBLE, i);
            case I64 -> data.getAtIndex(LONG, i);
            default -> get(i);
        };
    }

    public void setDouble(long i, double v) {
        switch (dtype) {
            case FP64 -> data.setAtIndex(DOUBLE, i, v);
            case I64 -> data.setAtIndex(LONG, i, (long) v);
            default -> set(i, (float) v);
        }
    }

    /** All elements as doubles: for references and checks on small tensors. */
    public double[] toDoubles() {
        long n = elements();
        if (n > Integer.MAX_VALUE - 8) throw new IllegalStateException(spec + " is too large to copy to a Java array");
        double[] out = new double[(int) n];
        for (int i = 0; i < out.length; i++) out[i] = getDouble(i);
        return out;
    }

    public void copyFrom(Tensor other) {
        if (other.spec.bytes() != spec.bytes() || other.dtype != dtype) {
            throw new IllegalArgumentException("cannot copy " + other.spec + " into " + spec);
        }
        MemorySegment.copy(other.data, 0, data, 0, spec.bytes());
    }

    @Override public void close() { arena.close(); }

    @Override public String toString() { return "Tensor " + spec; }
}
