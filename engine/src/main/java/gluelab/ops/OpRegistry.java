package gluelab.ops;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * One layer's implementations of the catalogue's ops, keyed by {@link OpId} and built in one
 * place: an entry per op, or a declared {@link Skip} saying why the layer has none. The registry
 * test checks every registry against the catalogue with {@link #uncovered}.
 */
public final class OpRegistry<T> {
    private final String layer;
    private final Map<OpId, T> entries;
    private final Map<OpId, Skip> skips;

    private OpRegistry(String layer, Map<OpId, T> entries, Map<OpId, Skip> skips) {
        this.layer = layer;
        this.entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
        this.skips = Collections.unmodifiableMap(new LinkedHashMap<>(skips));
    }

    public static <T> Builder<T> builder(String layer) { return new Builder<>(layer); }

    /**
     * One file's entries (or declared skips) for a layer's registry. Each layer names its own
     * subtype as the service (generics are erased), lists its implementations in
     * {@code META-INF/services/<that subtype>}, and builds its registry with {@link #discover}.
     */
    public interface Entries<T> {
        void register(Builder<T> registry);
    }

    /** The registry of every {@code service} implementation {@code loader} finds, in class path and file order. */
    public static <T> OpRegistry<T> discover(String layer, Class<? extends Entries<T>> service, ClassLoader loader) {
        Builder<T> b = builder(layer);
        for (Entries<T> e : ServiceLoader.load(service, loader)) e.register(b);
        return b.build();
    }

    /** What the registry holds, e.g. "CPU kernels". */
    public String layer() { return layer; }

    /** The entries in registration order. */
    public Map<OpId, T> entries() { return entries; }

    public Optional<T> find(OpId op) { return Optional.ofNullable(entries.get(op)); }

    /** The entry for {@code op}; an error naming the layer, and its skip reason where it declares one. */
    public T get(OpId op) {
        T t = entries.get(op);
        if (t != null) return t;
        Skip s = skips.get(op);
        throw new IllegalArgumentException(s != null ? "the " + layer + " have no entry for op '" + op + "': " + s.reason()
                : "the " + layer + " have no entry for op '" + op + "'; they have " + entries.keySet().stream().sorted().toList());
    }

    public Optional<Skip> skip(OpId op) { return Optional.ofNullable(skips.get(op)); }

    /** One line per op of {@code ops} with neither an entry nor a declared skip here. */
    public List<String> uncovered(Collection<OpId> ops) {
        List<String> out = new ArrayList<>();
        for (OpId op : ops) {
            if (!entries.containsKey(op) && !skips.containsKey(op)) out.add("op '" + op + "' has no entry in the " + layer + " and no declared skip");
        }
        return out;
    }

    public static final class Builder<T> {
        private final String layer;
        private final Map<OpId, T> entries = new LinkedHashMap<>();
        private final Map<OpId, Skip> skips = new LinkedHashMap<>();

        private Builder(String layer) { this.layer = layer; }

        public Builder<T> add(OpId op, T entry) {
            if (entries.containsKey(op) || skips.containsKey(op)) throw new IllegalStateException("the " + layer + " register op '" + op + "' twice");
            entries.put(op, entry);
            return this;
        }

        /** No entry for {@code op}, and why: the registry test accepts it, errors name the reason. */
        public Builder<T> skip(OpId op, String reason) {
            if (entries.containsKey(op) || skips.containsKey(op)) throw new IllegalStateException("the " + layer + " register op '" + op + "' twice");
            skips.put(op, new Skip(op + " " + layer, reason));
            return this;
        }

        public OpRegistry<T> build() { return new OpRegistry<>(layer, entries, skips); }
    }
}
