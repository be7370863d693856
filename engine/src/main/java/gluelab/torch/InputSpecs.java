package gluelab.torch;

import gluelab.model.ModelSpec;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The inputs of a user's function as text: {@code NAME:DIMS:DTYPE} separated by ';' or spaces, DIMS
 * comma-separated numbers or a model spec's symbols: T (tokens), B (1), D (hidden), H (heads), KV (kv
 * heads), HD (head dim), F (FFN width), E (experts), K (top-k). Example: {@code x:T,D:bf16; w:D:bf16}.
 */
public final class InputSpecs {
    private InputSpecs() {}

    public static Map<String, Long> symbols(ModelSpec spec, long tokens) {
        Map<String, Long> s = new LinkedHashMap<>();
        s.put("T", tokens);
        s.put("B", 1L);
        s.put("D", (long) spec.hidden());
        s.put("H", (long) spec.heads());
        s.put("KV", (long) spec.kvHeads());
        s.put("HD", (long) spec.headDim());
        s.put("F", (long) spec.swigluWidth());
        s.put("E", (long) spec.experts());
        s.put("K", (long) spec.topK());
        return s;
    }

    /** What each symbol stands for, as a hint names its source. */
    private static final Map<String, String> MEANING = Map.of("T", "the token count", "B", "the batch, always 1", "D", "the hidden size",
            "H", "the attention heads", "KV", "the KV heads", "HD", "the head dim", "F", "the FFN width", "E", "the experts", "K", "the experts per token");

    /**
     * What {@code text}'s symbols resolved to at {@code tokens} tokens, for an error about a shape the model refuses:
     * {@code x: (T, D) = (16, 4096) with T=16 (the token count), D=4096 (the hidden size of --model llama-3-8b)}; "" when no
     * input uses a symbol (the shapes are as given).
     */
    public static String hint(String text, ModelSpec spec, long tokens) {
        Map<String, Long> symbols = symbols(spec, tokens);
        List<String> shapes = new ArrayList<>();
        Map<String, Long> used = new LinkedHashMap<>();
        for (String item : text.trim().split("[;\\s]+")) {
            String[] parts = item.split(":");
            if (parts.length != 3) continue;
            List<String> dims = java.util.Arrays.stream(parts[1].split(",")).map(String::trim).toList();
            dims.stream().filter(symbols::containsKey).forEach(d -> used.put(d, symbols.get(d)));
            shapes.add(parts[0].trim() + ": (" + String.join(", ", dims) + ") = ("
                    + String.join(", ", dims.stream().map(d -> symbols.containsKey(d) ? String.valueOf(symbols.get(d)) : d).toList()) + ")");
        }
        if (used.isEmpty()) return "";
        List<String> with = new ArrayList<>();
        used.forEach((sym, v) -> with.add(sym + "=" + v + " (" + MEANING.get(sym) + (sym.equals("T") || sym.equals("B") ? "" : " of --model " + spec.name()) + ")"));
        return "--inputs resolved: " + String.join("; ", shapes) + " with " + String.join(", ", with);
    }

    public static List<TensorSpec> parse(String text, Map<String, Long> symbols) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("--inputs is empty; e.g. x:T,D:bf16; w:D:bf16");
        List<TensorSpec> out = new ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (String item : text.trim().split("[;\\s]+")) {
            String[] parts = item.split(":");
            if (parts.length != 3) throw new IllegalArgumentException("input '" + item + "': expected NAME:DIMS:DTYPE, e.g. x:T,D:bf16");
            String name = parts[0].trim();
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("input '" + item + "': name '" + name + "' is not an identifier");
            // Else torch starts and the second one reads as a parameter forward lacks ("input 'x' has no parameter in forward(x)").
            if (!names.add(name)) throw new IllegalArgumentException("input '" + item + "': the name '" + name + "' is given twice");
            String[] dims = parts[1].split(",");
            long[] shape = new long[dims.length];
            for (int i = 0; i < dims.length; i++) {
                String d = dims[i].trim();
                Long v = symbols.get(d);
                if (v == null) {
                    try {
                        v = Long.parseLong(d);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("input '" + item + "': dim " + (i + 1) + " '" + d + "' is neither a number nor one of " + symbols.keySet());
                    }
                }
                if (v <= 0) throw new IllegalArgumentException("input '" + item + "': dim " + (i + 1) + " '" + d + "' is " + v + "; dims must be > 0");
                shape[i] = v;
            }
            DType dtype;
            try {
                dtype = DType.parse(parts[2].trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("input '" + item + "': " + e.getMessage());
            }
            out.add(TensorSpec.of(name, dtype, shape));
        }
        return out;
    }
}
