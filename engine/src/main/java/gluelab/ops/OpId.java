package gluelab.ops;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.regex.Pattern;

/**
 * An op's identity: its catalogue name ({@code rmsnorm}, {@code qnorm_rope_real}). Registries of
 * every layer (CPU kernels, eager chains, CUDA kernel families, expression regions, layer recipes,
 * the torch harness's op table) are keyed by it. In JSON it is the plain name, as records have
 * always written it.
 */
public record OpId(String name) implements Comparable<OpId> {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

    public OpId {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an op id is a lower-case name of letters, digits and '_' starting with a letter, got '" + name + "'");
        }
    }

    @JsonCreator public static OpId of(String name) { return new OpId(name == null ? null : name.trim()); }

    @JsonValue @Override public String name() { return name; }

    @Override public int compareTo(OpId o) { return name.compareTo(o.name); }

    @Override public String toString() { return name; }
}
