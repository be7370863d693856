package gluelab.ops;

import gluelab.tensor.DType;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The concrete sizes one op instance runs at: T (tokens), and whichever of D, H, HD, F, E, K the
 * op uses, plus the activation dtype and any scalar parameters (eps, theta, score function).
 */
public record OpShape(String op, Map<String, Long> dims, DType dtype, Map<String, Object> params) {
    public OpShape {
        dims = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(dims));
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    public long dim(String name) {
        Long v = dims.get(name);
        if (v == null) throw new IllegalArgumentException(op + " has no dim " + name + "; dims: " + dims.keySet());
        return v;
    }

    public long tokens() { return dim("T"); }

    public double param(String name) { return ((Number) params.get(name)).doubleValue(); }

    public String text(String name) { return String.valueOf(params.get(name)); }

    @Override public String toString() { return op + dims + ":" + dtype.id(); }
}
