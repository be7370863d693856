package gluelab.backend.cuda;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A kernel's parameters as its {@code extern "C" __global__} declaration in the CUDA source names
 * them, so a launch can be checked against it (count, kind and name of each argument) before it
 * runs: a mismatch is a clear error, not a kernel reading a float as a pointer.
 */
record KernelSignature(String kernel, List<Param> params) {
    /** How an argument is passed: a device pointer or a scalar of the kernel's types. */
    enum Kind { PTR, I64, I32, F32, F64 }

    /** One parameter; {@code name} is null for an argument bound without a name. */
    record Param(Kind kind, String name) {
        @Override public String toString() { return kind.name().toLowerCase(java.util.Locale.ROOT) + (name == null ? "" : " " + name); }
    }

    private static final Pattern DECL = Pattern.compile(
            "extern \"C\" __global__ void\\s+(?:[A-Z_][A-Z0-9_]*\\s+|__launch_bounds__\\([^)]*\\)\\s+)?(\\w+)\\s*\\(([^)]*)\\)");

    /**
     * Every {@code extern "C" __global__} kernel declared in {@code source}, by name. A kernel
     * declared twice (one form per preprocessor branch) must take the same parameters.
     */
    static Map<String, KernelSignature> parse(String source) {
        Map<String, KernelSignature> out = new LinkedHashMap<>();
        Matcher m = DECL.matcher(source);
        while (m.find()) {
            if (isMacroBody(source, m.start())) continue;
            add(out, new KernelSignature(m.group(1), params(m.group(1), m.group(2))));
        }
        // Kernels stamped out by a macro (#define CALIB_COPY(name, ...) extern "C" __global__ ... name(...)):
        // each use of the macro declares a kernel named by its first argument, with the body's parameters.
        Matcher d = MACRO.matcher(source);
        while (d.find()) {
            String body = d.group(3).replace("\\\n", " ");
            Matcher k = DECL.matcher(body);
            if (!k.find() || !k.group(1).equals(d.group(2).split(",")[0].strip())) continue;
            List<Param> params = params(d.group(1), k.group(2));
            Matcher use = Pattern.compile("(?m)^\\s*" + d.group(1) + "\\(\\s*(\\w+)").matcher(source);
            while (use.find()) add(out, new KernelSignature(use.group(1), params));
        }
        return out;
    }

    private static final Pattern MACRO = Pattern.compile("(?m)^#define\\s+(\\w+)\\(([^)]*)\\)((?:[^\\n]*\\\\\\n)*[^\\n]*)");

    /** Whether the declaration at {@code at} sits in a {@code #define}'s body (its name is a macro parameter). */
    private static boolean isMacroBody(String source, int at) {
        int lineStart = source.lastIndexOf('\n', at) + 1;
        // a macro body continues lines ending in a backslash: walk back over them to the #define
        int i = lineStart;
        while (i > 0) {
            int prevEnd = i - 1, prevStart = source.lastIndexOf('\n', prevEnd - 1) + 1;
            String prev = source.substring(prevStart, prevEnd);
            if (!prev.endsWith("\\")) break;
            if (prev.stripLeading().startsWith("#define")) return true;
            i = prevStart;
        }
        return source.substring(lineStart, at).stripLeading().startsWith("#define");
    }

    private static void add(Map<String, KernelSignature> out, KernelSignature s) {
        KernelSignature before = out.putIfAbsent(s.kernel(), s);
        if (before != null && !before.equals(s)) {
            throw new IllegalStateException("kernel " + s.kernel() + " is declared with two parameter lists: " + before.params() + " and " + s.params());
        }
    }

    private static List<Param> params(String kernel, String list) {
        List<Param> out = new ArrayList<>();
        if (list.isBlank()) return out;
        for (String raw : list.split(",")) {
            String p = raw.strip().replaceAll("\\s+", " ");
            Matcher nm = Pattern.compile("(\\w+)$").matcher(p);
            if (!nm.find()) throw new IllegalStateException("kernel " + kernel + ": cannot read parameter '" + p + "'");
            String name = nm.group(1), type = p.substring(0, nm.start()).replace("const ", "").replace("volatile ", "").replace("__restrict__", "").strip();
            Kind kind;
            if (type.endsWith("*")) kind = Kind.PTR;
            else kind = switch (type) {
                case "i64", "long long" -> Kind.I64;
                case "int", "unsigned" -> Kind.I32;
                case "float" -> Kind.F32;
                case "double" -> Kind.F64;
                default -> throw new IllegalStateException("kernel " + kernel + ": parameter '" + p + "' has a type launches cannot pass");
            };
            out.add(new Param(kind, name));
        }
        return out;
    }

    /** Throws when {@code bound} does not match: count, each kind, and each name that was given. */
    void check(List<Param> bound) {
        boolean ok = bound.size() == params.size();
        for (int i = 0; ok && i < bound.size(); i++) {
            Param b = bound.get(i), p = params.get(i);
            ok = b.kind() == p.kind() && (b.name() == null || b.name().equals(p.name()));
        }
        if (!ok) throw new IllegalStateException("launch of " + kernel + " binds " + bound + ", the kernel takes " + params);
    }
}
