package gluelab.trace;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.*;

/** Two traces side by side: per family and per kernel, time and count deltas (b - a) and shares. */
public record TraceDiff(TraceSummary a, TraceSummary b, List<FamilyDelta> families, List<KernelDelta> kernels,
                        @JsonProperty("kernel_time_delta_us") double kernelTimeDeltaUs, @JsonProperty("kernel_count_delta") int kernelCountDelta) {

    public record FamilyDelta(String family, @JsonProperty("a_us") double aUs, @JsonProperty("b_us") double bUs, @JsonProperty("delta_us") double deltaUs,
                              @JsonProperty("a_count") int aCount, @JsonProperty("b_count") int bCount, @JsonProperty("delta_count") int deltaCount,
                              @JsonProperty("a_share_pct") double aShare, @JsonProperty("b_share_pct") double bShare) {}

    public record KernelDelta(String name, String family, @JsonProperty("a_us") double aUs, @JsonProperty("b_us") double bUs,
                              @JsonProperty("delta_us") double deltaUs, @JsonProperty("a_count") int aCount, @JsonProperty("b_count") int bCount) {}

    public static TraceDiff of(TraceSummary a, TraceSummary b) {
        Set<String> names = new LinkedHashSet<>(a.families().keySet());
        names.addAll(b.families().keySet());
        double ta = a.familyTimeUs(), tb = b.familyTimeUs();
        List<FamilyDelta> fam = new ArrayList<>();
        for (String f : names) {
            var x = a.families().getOrDefault(f, new TraceSummary.FamilyTotal(0, 0));
            var y = b.families().getOrDefault(f, new TraceSummary.FamilyTotal(0, 0));
            fam.add(new FamilyDelta(f, x.timeUs(), y.timeUs(), TraceSummary.round(y.timeUs() - x.timeUs()), x.count(), y.count(), y.count() - x.count(),
                    TraceSummary.round(ta > 0 ? 100 * x.timeUs() / ta : 0), TraceSummary.round(tb > 0 ? 100 * y.timeUs() / tb : 0)));
        }
        fam.sort(Comparator.comparingDouble((FamilyDelta d) -> Math.abs(d.deltaUs())).reversed());
        Map<String, TraceSummary.KernelRow> ka = new HashMap<>(), kb = new HashMap<>();
        a.kernels().forEach(k -> ka.put(k.name(), k));
        b.kernels().forEach(k -> kb.put(k.name(), k));
        Set<String> all = new LinkedHashSet<>(ka.keySet());
        all.addAll(kb.keySet());
        List<KernelDelta> kernels = new ArrayList<>();
        for (String n : all) {
            var x = ka.get(n);
            var y = kb.get(n);
            double xa = x == null ? 0 : x.totalUs(), yb = y == null ? 0 : y.totalUs();
            kernels.add(new KernelDelta(n, x != null ? x.family() : y.family(), xa, yb, TraceSummary.round(yb - xa), x == null ? 0 : x.count(), y == null ? 0 : y.count()));
        }
        kernels.sort(Comparator.comparingDouble((KernelDelta d) -> Math.abs(d.deltaUs())).reversed());
        return new TraceDiff(a, b, fam, kernels, TraceSummary.round(b.kernelTimeUs() - a.kernelTimeUs()), b.kernelCount() - a.kernelCount());
    }
}
