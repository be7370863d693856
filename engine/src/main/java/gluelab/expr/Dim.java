package gluelab.expr;

/** One named dim of an expression's shape: T (tokens), D (hidden), H (heads), HD (head dim), ... */
public record Dim(String name, long size) {
    public Dim {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a dim needs a name");
        if (size <= 0) throw new IllegalArgumentException("dim " + name + " must be > 0, got " + size);
    }

    @Override public String toString() { return name + "=" + size; }
}
