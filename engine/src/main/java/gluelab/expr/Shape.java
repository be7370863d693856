package gluelab.expr;

import java.util.ArrayList;
import java.util.List;

/**
 * The named dims of an expression node, outermost first. The last dim is the row a reduction,
 * view or cat works along; the others are row dims. A shape with no dims is a scalar.
 */
public record Shape(List<Dim> dims) {
    public static final Shape SCALAR = new Shape(List.of());

    public Shape {
        dims = List.copyOf(dims);
        for (int i = 0; i < dims.size(); i++) {
            for (int k = 0; k < i; k++) {
                if (dims.get(k).name().equals(dims.get(i).name())) throw new IllegalArgumentException("dim " + dims.get(i).name() + " appears twice in " + dims);
            }
        }
    }

    public static Shape of(Dim... dims) { return new Shape(List.of(dims)); }

    public int rank() { return dims.size(); }

    public boolean isScalar() { return dims.isEmpty(); }

    public Dim last() {
        if (dims.isEmpty()) throw new IllegalStateException("a scalar has no last dim");
        return dims.getLast();
    }

    /** All dims but the last. */
    public Shape rowDims() { return isScalar() ? this : new Shape(dims.subList(0, dims.size() - 1)); }

    public long elements() {
        long n = 1;
        for (Dim d : dims) n = Math.multiplyExact(n, d.size());
        return n;
    }

    public long[] sizes() { return dims.stream().mapToLong(Dim::size).toArray(); }

    public int indexOf(String name) {
        for (int i = 0; i < dims.size(); i++) if (dims.get(i).name().equals(name)) return i;
        return -1;
    }

    /** This shape with its last dim replaced. */
    public Shape withLast(Dim last) {
        List<Dim> d = new ArrayList<>(rowDims().dims);
        d.add(last);
        return new Shape(d);
    }

    /** This shape with {@code last} appended. */
    public Shape append(Dim last) {
        List<Dim> d = new ArrayList<>(dims);
        d.add(last);
        return new Shape(d);
    }

    /**
     * Where each of {@code part}'s dims sits in this shape, or null when part does not broadcast to
     * it: dims match by name in the same order; part's last dim may match this shape's last dim by
     * size alone (a slice's half of HD against a table of width HD/2).
     */
    public int[] embed(Shape part) {
        int[] at = new int[part.rank()];
        int from = 0;
        for (int i = 0; i < part.rank(); i++) {
            Dim d = part.dims.get(i);
            int k = indexOf(d.name());
            boolean lastBySize = k < 0 && i == part.rank() - 1 && !isScalar() && last().size() == d.size() && rank() - 1 >= from;
            if (lastBySize) k = rank() - 1;
            if (k < 0 || k < from || dims.get(k).size() != d.size()) return null;
            at[i] = k;
            from = k + 1;
        }
        return at;
    }

    public boolean covers(Shape part) { return embed(part) != null; }

    /** Same sizes dim by dim (names may differ): the shape a gradient is stored with. */
    public boolean sameSizes(Shape o) { return java.util.Arrays.equals(sizes(), o.sizes()); }

    @Override public String toString() { return dims.toString(); }
}
