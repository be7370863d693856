package gluelab.expr;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A region's structure, shapes and dtypes as text, without input, output or region names: the
 * same normalisation at every layer gives the same signature, so it compiles once.
 */
public record Signature(String text, String key) {
    public static Signature of(Region r) {
        Map<Expr, Integer> index = new IdentityHashMap<>();
        StringBuilder b = new StringBuilder();
        for (Expr e : r.nodes()) {
            int i = index.size();
            index.put(e, i);
            b.append(i).append('=').append(e.op().id()).append(':').append(e.dtype().id()).append(e.shape());
            switch (e.op()) {
                case CONST, POW -> b.append('(').append(Double.toHexString(e.num())).append(')');
                case SLICE, SCATTER -> b.append('(').append(e.start()).append(',').append(e.step()).append(')');
                case INPUT -> b.append(e.requiresGrad() ? "(grad)" : "");
                default -> { }
            }
            b.append('[');
            for (Expr a : e.args()) b.append(index.get(a)).append(',');
            b.append("];");
        }
        b.append("out");
        for (Expr o : r.outputs().values()) b.append(' ').append(index.get(o));
        String text = b.toString();
        return new Signature(text, digest(text));
    }

    /** The signature with a launch configuration (or any other compile-time choice) appended. */
    public Signature with(String suffix) { return new Signature(text + "|" + suffix, digest(text + "|" + suffix)); }

    private static String digest(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override public String toString() { return key; }
}
