package gluelab.model;

/**
 * One spec a region change reaches (workflow step 9): {@code spec} runs the region because
 * {@code enabledIn} lists it, either itself or an ancestor it {@code extends}.
 */
public record RegionReach(String spec, String enabledIn) {
    public RegionReach {
        if (spec == null || spec.isBlank()) throw new IllegalArgumentException("a region reach needs a spec name");
        if (enabledIn == null || enabledIn.isBlank()) throw new IllegalArgumentException(spec + ": a region reach needs the spec that enables it (enabledIn)");
    }

    public boolean inherited() { return !spec.equals(enabledIn); }

    /** "kimi-k2 (extends dsv3-ours, which enables it)" or "dsv3-ours (enables it)". */
    public String describe() {
        return spec + (inherited() ? " (inherits it from " + enabledIn + ")" : " (enables it)");
    }
}
