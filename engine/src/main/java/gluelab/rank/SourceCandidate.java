package gluelab.rank;

import gluelab.floor.OpKind;

/**
 * One row to rank from a model's own profile: an op at a place in the analyst's code, per step.
 * ideal = the larger of its bytes floor (its tensor inputs read and as many bytes written at the
 * calibrated bandwidth) and, for a GEMM or attention, its FLOPs over the device's peak; gap =
 * measured - ideal; share = measured / step; score = gap x share, as {@link Candidate}'s. Only glue
 * ({@code kind}) is a candidate for a fix; GEMMs and attention are ranked beside it so the share they
 * hold is seen, and marked not glue. {@code idealUs} is NaN when the op's bytes are unknown (its profile
 * recorded no tensor inputs): then it has no gap and no score, rather than a made-up floor of 0.
 */
public record SourceCandidate(String location, String op, String pass, String shapes, OpKind kind, int calls, double measuredUs, double idealUs,
                              double stepUs) {
    public SourceCandidate {
        if (!(stepUs > 0)) throw new IllegalArgumentException("step time must be > 0 us, got " + stepUs);
        if (kind == null) throw new IllegalArgumentException(op + " at " + location + ": no op kind");
        if (measuredUs < 0 || idealUs < 0) throw new IllegalArgumentException(op + " at " + location + ": times must be >= 0");
    }

    /** Whether the op has a floor to measure its gap against (its bytes are known). */
    public boolean floorKnown() { return !Double.isNaN(idealUs); }

    /** NaN when the floor is unknown. */
    public double gapUs() { return floorKnown() ? Math.max(0, measuredUs - idealUs) : Double.NaN; }

    public double share() { return measuredUs / stepUs; }

    public double score() { return gapUs() * share(); }

    public double gapShare() { return gapUs() / stepUs; }

    /** How a candidate reads: where in the analyst's code, then the op. */
    public String label() { return (location.isEmpty() ? "(outside the model file)" : location) + " " + op + " " + pass; }
}
