package gluelab.workflow.stack;

import gluelab.model.RegionReach;
import gluelab.model.SpecRegistry;

import java.util.ArrayList;
import java.util.List;

/**
 * Which model specs a change reaches (workflow step 9). A region change reaches every spec that
 * enables the region, directly or through {@code extends}; a change with no region (a kernel, a
 * rewrite called everywhere) names the specs that run the changed path.
 */
public record Scope(String region, List<RegionReach> specs) {
    public Scope {
        specs = specs == null ? List.of() : List.copyOf(specs);
        if (region != null && region.isBlank()) throw new IllegalArgumentException("scope: region must be a name or absent");
    }

    /** Every spec of {@code registry} that runs {@code region}. */
    public static Scope of(SpecRegistry registry, String region) { return new Scope(region, registry.reachOf(region)); }

    /** The specs running {@code region} among {@code spec} and the specs that extend it. */
    public static Scope of(SpecRegistry registry, String region, String spec) { return new Scope(region, registry.reachOf(region, spec)); }

    /** A change outside any region: the specs that run the changed path, named by the analyst. */
    public static Scope specs(List<String> names) {
        List<RegionReach> out = new ArrayList<>();
        for (String n : names) out.add(new RegionReach(n, n));
        return new Scope(null, out);
    }

    @com.fasterxml.jackson.annotation.JsonIgnore public boolean isEmpty() { return specs.isEmpty(); }

    /** One line per reached spec: "region q_norm_rope: kimi-k2 (inherits it from dsv3-ours)". */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        for (RegionReach r : specs) out.add(region == null ? r.spec() + " (runs the changed path)" : "region " + region + ": " + r.describe());
        return out;
    }
}
