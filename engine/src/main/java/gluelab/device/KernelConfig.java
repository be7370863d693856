package gluelab.device;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * One launch configuration of a tunable kernel: the kernel's name and its tunable parameters in
 * declaration order (threads per block, vector width, ...). Its {@link #id()} is the readable
 * form that records, charts and the pick cache use.
 */
public record KernelConfig(String kernel, Map<String, Integer> params) {
    public KernelConfig {
        if (kernel == null || kernel.isBlank()) throw new IllegalArgumentException("a kernel config needs a kernel name");
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    public int get(String name) {
        Integer v = params.get(name);
        if (v == null) throw new IllegalArgumentException(kernel + " config " + id() + " has no parameter '" + name + "'");
        return v;
    }

    /** "threads=256 vec=8 cpt=2". */
    public String id() {
        StringJoiner j = new StringJoiner(" ");
        params.forEach((k, v) -> j.add(k + "=" + v));
        return j.toString();
    }

    @Override public String toString() { return kernel + "[" + id() + "]"; }
}
