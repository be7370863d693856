package gluelab.tensor;

import java.util.Arrays;

/** A named tensor's shape and element type; what an op declares for each input and output. */
public record TensorSpec(String name, long[] shape, DType dtype) {
    public TensorSpec {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("tensor name is empty");
        shape = shape.clone();
        for (long d : shape) {
            if (d <= 0) throw new IllegalArgumentException("tensor '" + name + "' has a non-positive dim: " + Arrays.toString(shape));
        }
    }

    public static TensorSpec of(String name, DType dtype, long... shape) {
        return new TensorSpec(name, shape, dtype);
    }

    public long elements() {
        long n = 1;
        for (long d : shape) n = Math.multiplyExact(n, d);
        return n;
    }

    public long bytes() { return Math.multiplyExact(elements(), dtype.bytes()); }

    /** Size of the last dim: the row length ops reduce or rotate over. */
    public long lastDim() { return shape[shape.length - 1]; }

    public long rows() { return elements() / lastDim(); }

    @Override public long[] shape() { return shape.clone(); }

    @Override public boolean equals(Object o) {
        return o instanceof TensorSpec t && t.name.equals(name) && Arrays.equals(t.shape, shape) && t.dtype == dtype;
    }

    @Override public int hashCode() { return name.hashCode() * 31 + Arrays.hashCode(shape) * 7 + dtype.hashCode(); }

    @Override public String toString() { return name + Arrays.toString(shape) + ":" + dtype.id(); }
}
