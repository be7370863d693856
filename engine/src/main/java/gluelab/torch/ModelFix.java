package gluelab.torch;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A fix of the analyst's model: a named variant of it, made of parts that the harness applies to a
 * fresh copy of the model ({@code gluelab/torch/model_variants.py}). The command line writes one as
 * {@code NAME=PART+PART...}, a part being
 * <ul>
 *   <li>{@code regions:model.Attention.rope,model.FeedForward.forward}: those functions compiled on their own with fullgraph=True;</li>
 *   <li>{@code swap:model.apply_rotary_emb=fixes.py:apply_rotary_emb_real}: a function, method or module class of the model file
 *       replaced by the analyst's rewrite (made before {@code build} runs, so a swapped class is the one built);</li>
 *   <li>{@code options:model.RMSNorm.forward:coordinate_descent_tuning=true,epilogue_fusion=false}: that function compiled on its
 *       own with these Inductor options for it alone (values true/false, numbers, else text);</li>
 *   <li>{@code autograd:model.apply_rotary_emb=fixes.py:RotaryFunction.apply}: a swap whose replacement is the analyst's
 *       autograd.Function (its apply, or a function of a file that defines one).</li>
 * </ul>
 * Regions and options compile what the module holds after the swaps, so {@code swap:...+regions:model.apply_rotary_emb}
 * compiles the rewrite. Paths start with {@code model}, the model file's module, as {@code --regions} does.
 */
public record ModelFix(String name, List<Part> parts) {
    /** The kinds in the method's order of cost (docs/methodology.md, "fix, cheapest first"). */
    public enum Kind { REGIONS, SWAP, OPTIONS, AUTOGRAD }

    public ModelFix {
        if (name == null || !name.matches("[A-Za-z0-9_][A-Za-z0-9_.-]*"))
            throw new IllegalArgumentException("fix name '" + name + "': use letters, digits, '_', '.' and '-'");
        if (parts == null || parts.isEmpty()) throw new IllegalArgumentException("fix " + name + ": no parts");
        parts = List.copyOf(parts);
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
    @JsonSubTypes({@JsonSubTypes.Type(value = RegionSet.class, name = "regions"), @JsonSubTypes.Type(value = Swap.class, name = "swap"),
            @JsonSubTypes.Type(value = RegionOptions.class, name = "options"), @JsonSubTypes.Type(value = AutogradSwap.class, name = "autograd")})
    public sealed interface Part permits RegionSet, Swap, RegionOptions, AutogradSwap {
        @JsonIgnore Kind kind();

        /** The part as the command line writes it. */
        String spec();
    }

    /** Functions of the model file, each compiled on its own with fullgraph=True. */
    public record RegionSet(List<String> regions) implements Part {
        public RegionSet {
            regions = List.copyOf(regions);
            if (regions.isEmpty()) throw new IllegalArgumentException("regions: none named; e.g. regions:model.Attention.rope");
            regions.forEach(r -> checkPath("region", r));
        }

        public Kind kind() { return Kind.REGIONS; }

        public String spec() { return "regions:" + String.join(",", regions); }
    }

    /** {@code target} (model.X[.Y]) replaced by {@code function} (a name, or Class.attr) of the Python file {@code file}. */
    public record Swap(String target, String file, String function) implements Part {
        public Swap {
            checkPath("swap target", target);
            checkReplacement(file, function);
        }

        public Kind kind() { return Kind.SWAP; }

        public String spec() { return "swap:" + target + "=" + file + ":" + function; }
    }

    /** One function compiled on its own with an Inductor config dict for it alone. */
    public record RegionOptions(String region, Map<String, Object> options) implements Part {
        public RegionOptions {
            checkPath("options region", region);
            if (options == null || options.isEmpty()) throw new IllegalArgumentException("options for " + region + ": none given; e.g. options:" + region + ":epilogue_fusion=false");
            options = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(options));
        }

        public Kind kind() { return Kind.OPTIONS; }

        public String spec() {
            return "options:" + region + ":" + options.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
        }
    }

    /** A swap whose replacement is the analyst's autograd.Function (its hand-written backward). */
    public record AutogradSwap(String target, String file, String function) implements Part {
        public AutogradSwap {
            checkPath("autograd target", target);
            checkReplacement(file, function);
        }

        public Kind kind() { return Kind.AUTOGRAD; }

        public String spec() { return "autograd:" + target + "=" + file + ":" + function; }
    }

    /** The costliest kind among the parts: where the fix sits in "cheapest first". */
    public Kind kind() { return parts.stream().map(Part::kind).max(Comparator.naturalOrder()).orElseThrow(); }

    /** Only regions: a fix that changes which functions compile on their own. */
    public boolean regionSet() { return parts.stream().allMatch(p -> p instanceof RegionSet); }

    /** {@code NAME=PART+PART}, as parsed. */
    public String spec() { return name + "=" + parts.stream().map(Part::spec).collect(Collectors.joining("+")); }

    /** The fixes applied together as one variant named {@code name}: their parts in order. */
    public static ModelFix together(String name, List<ModelFix> fixes) {
        List<Part> all = new ArrayList<>();
        fixes.forEach(f -> all.addAll(f.parts()));
        return new ModelFix(name, all);
    }

    /** The fixes in the method's order of cost, stable among equals. */
    public static List<ModelFix> cheapestFirst(List<ModelFix> fixes) {
        return fixes.stream().sorted(Comparator.comparing(ModelFix::kind)).toList();
    }

    /** {@code NAME=SPEC} from the command line; a replacement file is resolved against the working directory and must exist. */
    public static ModelFix parse(String text) {
        int eq = text == null ? -1 : text.indexOf('=');
        if (eq <= 0) throw new IllegalArgumentException("--fix '" + text + "': expected NAME=KIND:..., e.g. rope=swap:model.apply_rotary_emb=fixes.py:apply_rotary_emb_real");
        String name = text.substring(0, eq).strip();
        if (name.contains(":")) {
            throw new IllegalArgumentException("--fix '" + text + "': no NAME= before the fix (it starts with the kind '" + name.substring(0, name.indexOf(':'))
                    + "'); expected NAME=KIND:..., e.g. rope=" + text.strip());
        }
        List<Part> parts = new ArrayList<>();
        for (String p : text.substring(eq + 1).split("\\+")) {
            try {
                parts.add(part(p.strip()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--fix " + name + ": " + e.getMessage(), e);
            }
        }
        return new ModelFix(name, parts);
    }

    static Part part(String p) {
        int colon = p.indexOf(':');
        String kind = colon < 0 ? p : p.substring(0, colon), rest = colon < 0 ? "" : p.substring(colon + 1).strip();
        return switch (kind) {
            case "regions" -> new RegionSet(Arrays.stream(rest.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList());
            case "swap", "autograd" -> {
                int eq = rest.indexOf('=');
                int c = rest.lastIndexOf(':');
                if (eq <= 0 || c <= eq) throw new IllegalArgumentException("'" + p + "': expected " + kind + ":model.TARGET=FILE.py:FUNCTION");
                String target = rest.substring(0, eq).strip(), file = rest.substring(eq + 1, c).strip(), function = rest.substring(c + 1).strip();
                String path = Path.of(file).toAbsolutePath().normalize().toString();
                yield kind.equals("swap") ? new Swap(target, path, function) : new AutogradSwap(target, path, function);
            }
            case "options" -> {
                int c = rest.indexOf(':');
                if (c <= 0) throw new IllegalArgumentException("'" + p + "': expected options:model.REGION:KEY=VALUE,...");
                Map<String, Object> options = new LinkedHashMap<>();
                for (String kv : rest.substring(c + 1).split(",")) {
                    int e = kv.indexOf('=');
                    if (e <= 0) throw new IllegalArgumentException("'" + p + "': option '" + kv.strip() + "' is not KEY=VALUE");
                    options.put(kv.substring(0, e).strip(), value(kv.substring(e + 1).strip()));
                }
                yield new RegionOptions(rest.substring(0, c).strip(), options);
            }
            default -> throw new IllegalArgumentException("'" + p + "': unknown kind '" + kind + "'; known: regions, swap, options, autograd");
        };
    }

    /** An option's value as Inductor wants it: a boolean, an integer, a number, else the text. */
    static Object value(String v) {
        if (v.equals("true") || v.equals("True")) return true;
        if (v.equals("false") || v.equals("False")) return false;
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            // not an integer
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return v;
        }
    }

    static void checkPath(String what, String path) {
        if (path == null || !path.matches("model(\\.[A-Za-z_][A-Za-z0-9_]*)+"))
            throw new IllegalArgumentException(what + " '" + path + "': expected model.NAME[.NAME...], a function, method or class of the model file");
    }

    static void checkReplacement(String file, String function) {
        if (file == null || !file.endsWith(".py")) throw new IllegalArgumentException("replacement file '" + file + "' is not a .py file");
        if (!Files.isRegularFile(Path.of(file))) throw new IllegalArgumentException("replacement file " + file + ": no such file");
        if (function == null || !function.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?"))
            throw new IllegalArgumentException("replacement " + file + ":" + function + ": expected a function name or Class.attr");
    }
}
