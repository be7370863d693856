package gluelab.trace;

import gluelab.table.Column;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.util.*;

/**
 * Kernels grouped by name: count, total / mean / min / max time, launch shape, share of GPU time.
 * Kernels with the same name are one row with their count (the merged-name trap: two 7 us kernels
 * are not one 14 us kernel).
 */
public final class KernelTable {
    /** One row. grid/block/registers are those of the first launch; {@code shapesVary} when later ones differ. */
    public record Entry(String name, String family, int count, double totalUs, double minUs, double maxUs,
                        String grid, String block, int registers, boolean shapesVary, double share) {
        public double meanUs() { return totalUs / count; }
    }

    private KernelTable() {}

    /** Rows largest total first; names of equal total in the order they first launched. */
    public static List<Entry> of(Trace t, KernelFamilies families) {
        double total = t.kernelMicros();
        List<Entry> out = new ArrayList<>();
        for (KernelTotals k : t.kernels()) {
            out.add(new Entry(k.name(), families.of(k.name()), k.count(), k.totalUs(), k.minUs(), k.maxUs(), Arrays.toString(k.grid()),
                    Arrays.toString(k.block()), k.registers(), k.shapesVary(), total > 0 ? k.totalUs() / total : 0));
        }
        out.sort(Comparator.comparingDouble(Entry::totalUs).reversed());
        return out;
    }

    /** Time and count per family, kernels plus memcpy/memset, largest first. */
    public static Map<String, double[]> families(Trace t, KernelFamilies families) {
        Map<String, double[]> m = new HashMap<>();
        for (KernelTotals k : t.kernels()) {
            double[] v = m.computeIfAbsent(families.of(k.name()), x -> new double[2]);
            v[0] += k.totalUs();
            v[1] += k.count();
        }
        if (t.gpuMem().count() > 0) m.put(KernelFamilies.MEMCPY, new double[]{t.gpuMem().totalUs(), t.gpuMem().count()});
        Map<String, double[]> sorted = new LinkedHashMap<>();
        m.entrySet().stream().sorted((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0])).forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    private static final Column KERNEL = Column.text("kernel", "the kernel's name, shortened to its head and functor tags"),
            FAMILY = Column.text("family", "the kernel's family"),
            LAUNCHES = Column.count("count", "launches of kernels of this name"),
            TOTAL = Column.time("total", "time of all its launches"), MEAN = Column.time("mean", "time per launch"),
            MIN = Column.time("min", "the fastest launch"), MAX = Column.time("max", "the slowest launch"),
            SHARE = Column.percent("share_pct", "its share of the trace's kernel time"),
            GRID = Column.text("grid", "the first launch's grid; * when later launches differ"), BLOCK = Column.text("block", "the first launch's block"),
            REGISTERS = Column.count("registers", "registers per thread");

    public static Table table(List<Entry> entries, int nameWidth) {
        var t = DataTable.builder("kernels", KERNEL, FAMILY, LAUNCHES, TOTAL, MEAN, MIN, MAX, SHARE, GRID, BLOCK, REGISTERS);
        for (Entry e : entries) {
            t.row(shorten(e.name(), nameWidth), e.family(), e.count(), e.totalUs(), e.meanUs(), e.minUs(), e.maxUs(), 100 * e.share(),
                    e.grid() + (e.shapesVary() ? "*" : ""), e.block(), e.registers());
        }
        return TableFormat.tablesaw(t.build());
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

}
