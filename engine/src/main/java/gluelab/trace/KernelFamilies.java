package gluelab.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Groups kernels into families by ordered regex rules on their names; the first rule that matches
 * wins. Users replace the defaults with a file of {@code family = regex} lines.
 */
public final class KernelFamilies {
    /** A rule; {@code source} says where it was written ({@code rules.txt:3}, or "default"). */
    public record Rule(String family, Pattern pattern, String source) {}

    /**
     * How many characters one rule may look at on one kernel name (about a second of matching): a
     * rule that backtracks catastrophically ({@code (a+)+$}) would otherwise hang the command.
     */
    static final long MATCH_BUDGET = 50_000_000;

    public static final String MEMCPY = "memcpy/memset", OTHER = "other";

    private final List<Rule> rules;
    /** Family per distinct kernel name: a trace repeats a few hundred names over millions of launches. */
    private final Map<String, String> memo = new ConcurrentHashMap<>();

    private KernelFamilies(List<Rule> rules) { this.rules = List.copyOf(rules); }

    public static KernelFamilies defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        // Attention first: cuDNN's SDPA kernels carry "wgmma" in their names too.
        d.put("attention", "flash|fmha|sdpa|cudnn.*(attn|attention)|scaled_dot_product");
        d.put("gemm", "nvjet|sm90_xmma|sm80_xmma|cutlass|gemm|gemv|cublas|wgmma");
        d.put("norm", "(?i)norm(?!al)|rms_|layernorm|batch_norm");
        d.put("cat/copy", "CatArrayBatchedCopy|direct_copy|copy_kernel|cat_array");
        d.put("sort/top-k", "sort|topk|radix|bitonic");
        d.put("scatter/gather", "index_put|scatter|gather|index_select|indexing_backward|index_elementwise|masked_fill|atomic");
        d.put("pointwise", "triton_poi_|elementwise|vectorized|unrolled");
        d.put("reduction", "reduce_kernel|triton_red_|triton_per_|reduction|softmax");
        List<Rule> rules = new ArrayList<>();
        d.forEach((f, r) -> rules.add(new Rule(f, Pattern.compile(r), "default")));
        return new KernelFamilies(rules);
    }

    /** Rules from lines {@code family = regex}; blank lines and {@code #} comments are skipped. */
    public static KernelFamilies parse(Path file) {
        List<String> lines = gluelab.files.TextInput.lines(file, "family rules");
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException(file + ":" + (i + 1) + ": expected 'family = regex', got: " + line);
            try {
                rules.add(new Rule(line.substring(0, eq).strip(), Pattern.compile(line.substring(eq + 1).strip()), file + ":" + (i + 1)));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": bad regex: " + e.getDescription(), e);
            }
        }
        if (rules.isEmpty()) throw new IllegalArgumentException(file + ": no family rules");
        return new KernelFamilies(rules);
    }

    public List<Rule> rules() { return rules; }

    public String of(String kernelName) {
        return memo.computeIfAbsent(kernelName, this::classify);
    }

    private String classify(String kernelName) {
        for (Rule r : rules) {
            try {
                if (r.pattern().matcher(new Budgeted(kernelName, MATCH_BUDGET)).find()) return r.family();
            } catch (OverBudget e) {
                String shown = kernelName.length() <= 80 ? kernelName : kernelName.substring(0, 77) + "...";
                throw new IllegalArgumentException("family rule '" + r.family() + " = " + r.pattern().pattern() + "' (" + r.source()
                        + ") backtracks without end on kernel '" + shown + "' (" + kernelName.length() + " chars); write it without nested or bounded repeats of .* such as (.*_){16}");
            }
        }
        return OTHER;
    }

    private static final class OverBudget extends RuntimeException {
        OverBudget() { super(null, null, false, false); }
    }

    /** The name as the regex engine sees it, counting every character it reads. */
    private static final class Budgeted implements CharSequence {
        private final String s;
        private long left;

        Budgeted(String s, long budget) { this.s = s; this.left = budget; }

        @Override public char charAt(int i) {
            if (--left < 0) throw new OverBudget();
            return s.charAt(i);
        }

        @Override public int length() { return s.length(); }

        @Override public CharSequence subSequence(int a, int b) { return s.substring(a, b); }

        @Override public String toString() { return s; }
    }
}
