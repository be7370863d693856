package gluelab.trace;

import tech.tablesaw.api.*;

import java.util.*;

/**
 * Kernels grouped by name: count, total / mean / min / max time, launch shape, share of GPU time.
 * Kernels with the same name are one row with their count (the merged-name trap: two 7 us kernels
 * are not one 14 us kernel). With ProfilerStep ranges, each kernel is assigned to the step whose
 * range holds its launch call.
 */
public final class KernelTable {
    /** One row. grid/block/registers are those of the first launch; {@code shapesVary} when later ones differ. */
    public record Entry(String name, String family, int count, double totalUs, double minUs, double maxUs,
                        String grid, String block, int registers, boolean shapesVary, double share, Map<String, Double> perStepUs) {
        public double meanUs() { return totalUs / count; }
    }

    private KernelTable() {}

    /** One name's running totals while the launches stream by: no allocation per launch. */
    private static final class Acc {
        final Events.Kernel first;
        int count;
        double total, min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY;
        boolean vary;

        Acc(Events.Kernel first) { this.first = first; }

        void add(Events.Kernel k) {
            count++;
            total += k.dur();
            min = Math.min(min, k.dur());
            max = Math.max(max, k.dur());
            if (!vary && k != first && (!Arrays.equals(k.grid(), first.grid()) || !Arrays.equals(k.block(), first.block()))) vary = true;
        }
    }

    public static List<Entry> of(Trace t, KernelFamilies families) {
        double total = t.kernelMicros();
        Map<Long, Double> launchTs = new HashMap<>();
        if (!t.steps().isEmpty()) for (Events.ApiCall c : t.apiCalls()) if (c.correlation() >= 0) launchTs.putIfAbsent(c.correlation(), c.ts());
        Map<String, Acc> rows = new LinkedHashMap<>();
        Map<String, Map<String, Double>> steps = new HashMap<>();
        for (Events.Kernel k : t.kernels()) {
            rows.computeIfAbsent(k.name(), n -> new Acc(k)).add(k);
            if (!t.steps().isEmpty()) {
                double at = launchTs.getOrDefault(k.correlation(), k.ts());
                for (Events.Step s : t.steps()) {
                    if (s.contains(at)) {
                        steps.computeIfAbsent(k.name(), x -> new TreeMap<>()).merge(s.name(), k.dur(), Double::sum);
                        break;
                    }
                }
            }
        }
        List<Entry> out = new ArrayList<>();
        for (Acc a : rows.values()) {
            Events.Kernel k = a.first;
            out.add(new Entry(k.name(), families.of(k.name()), a.count, a.total, a.min, a.max, Arrays.toString(k.grid()), Arrays.toString(k.block()),
                    k.registers(), a.vary, total > 0 ? a.total / total : 0, steps.getOrDefault(k.name(), Map.of())));
        }
        out.sort(Comparator.comparingDouble(Entry::totalUs).reversed());
        return out;
    }

    /** Time and count per family, kernels plus memcpy/memset, largest first. */
    public static Map<String, double[]> families(Trace t, KernelFamilies families) {
        Map<String, double[]> m = new HashMap<>();
        for (Events.Kernel k : t.kernels()) {
            double[] v = m.computeIfAbsent(families.of(k.name()), x -> new double[2]);
            v[0] += k.dur();
            v[1]++;
        }
        for (Events.GpuMem g : t.gpuMem()) {
            double[] v = m.computeIfAbsent(KernelFamilies.MEMCPY, x -> new double[2]);
            v[0] += g.dur();
            v[1]++;
        }
        Map<String, double[]> sorted = new LinkedHashMap<>();
        m.entrySet().stream().sorted((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0])).forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    public static Table table(List<Entry> entries, int nameWidth) {
        Table t = Table.create("kernels");
        StringColumn name = StringColumn.create("kernel"), family = StringColumn.create("family"), grid = StringColumn.create("grid"),
                block = StringColumn.create("block");
        IntColumn count = IntColumn.create("count"), regs = IntColumn.create("registers");
        DoubleColumn total = DoubleColumn.create("total_us"), mean = DoubleColumn.create("mean_us"), min = DoubleColumn.create("min_us"),
                max = DoubleColumn.create("max_us"), share = DoubleColumn.create("share_pct");
        for (Entry e : entries) {
            name.append(shorten(e.name(), nameWidth));
            family.append(e.family());
            count.append(e.count());
            total.append(r(e.totalUs()));
            mean.append(r(e.meanUs()));
            min.append(r(e.minUs()));
            max.append(r(e.maxUs()));
            share.append(r(100 * e.share()));
            grid.append(e.grid() + (e.shapesVary() ? "*" : ""));
            block.append(e.block());
            regs.append(e.registers());
        }
        return t.addColumns(name, family, count, total, mean, min, max, share, grid, block, regs);
    }

    private static final java.util.regex.Pattern TAG =
            java.util.regex.Pattern.compile("(\\w*(?:Functor|_kernel_cuda|_kernel|Op|_impl)\\w*)(?=[<,(>)\\s:]|$)");

    /**
     * Kernel names are C++ signatures; keep the head (up to the first template argument list) and the
     * functor or kernel names inside it, which tell two elementwise_kernel instances apart.
     */
    public static String shorten(String name, int width) {
        String s = (name.startsWith("void ") ? name.substring(5) : name).replace("(anonymous namespace)::", "");
        int angle = s.indexOf('<'), paren = s.indexOf('(');
        int cut = angle > 0 && (paren < 0 || angle < paren) ? angle : paren;
        if (cut <= 0) return s.length() <= width ? s : s.substring(0, width - 3) + "...";
        String head = s.substring(0, cut);
        java.util.LinkedHashSet<String> tags = new java.util.LinkedHashSet<>();
        var m = TAG.matcher(s.substring(cut));
        while (m.find() && tags.size() < 3) {
            String tag = m.group(1);
            if (!tag.isEmpty() && !head.endsWith(tag) && !tag.equals("gpu_kernel_impl") && !tag.equals("gpu_kernel_impl_nocast")) tags.add(tag);
        }
        String out = head + (tags.isEmpty() ? "" : " [" + String.join(", ", tags) + "]");
        return out.length() <= width ? out : out.substring(0, width - 3) + "...";
    }

    static double r(double v) { return Math.rint(v * 1000) / 1000.0; }
}
