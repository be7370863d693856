package gluelab.rank;

import gluelab.floor.OpKind;

/**
 * One row to rank from a model's own profile: an op at a place in the analyst's code, per step.
 * ideal = the larger of its bytes floor (its tensor inputs read and as many bytes written at the
 * calibrated bandwidth) and, for a GEMM or attention, its FLOPs over the device's peak; gap =
 * measured - ideal; share = measured / step; score = gap x share, as {@link Candidate}'s. Only glue
 * ({@code kind}) is a candidate for a fix; GEMMs and attention are ranked beside it so the share they
 * hold is seen, and marked not glue.
 */
public record SourceCandidate(String location, String op, String pass, String shapes, OpKind kind, int calls, double measuredUs, double idealUs,
                              double stepUs) {
    public SourceCandidate {
        if (!(stepUs > 0)) throw new IllegalArgumentException("step time must be > 0 us, got " + stepUs);
        if (kind == null) throw new IllegalArgumentException(op + " at " + location + ": no op kind");
        if (measuredUs < 0 || idealUs < 0) throw new IllegalArgumentException(op + " at " + location + ": times must be >= 0");
    }

    public double gapUs() { return Math.max(0, measuredUs - idealUs); }

    public double share() { return measuredUs / stepUs; }

    public double score() { return gapUs() * share(); }

    public double gapShare() { return gapUs() / stepUs; }

    /** How a candidate reads: where in the analyst's code, then the op. */
    public String label() { return (location.isEmpty() ? "(outside the model file)" : location) + " " + op + " " + pass; }
}
