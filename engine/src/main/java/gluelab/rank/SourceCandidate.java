package gluelab.rank;

/**
 * One row to rank from a model's own profile: an op at a place in the analyst's code, per step.
 * ideal = the bytes its tensor inputs hold, read and written once, at the calibrated bandwidth (a
 * bandwidth floor, which understates a GEMM's or attention's floor: their FLOP floors are not used
 * here). gap = measured - ideal; share = measured / step; score = gap x share, as {@link Candidate}'s.
 */
public record SourceCandidate(String location, String op, String pass, String shapes, int calls, double measuredUs, double idealUs, double stepUs) {
    public SourceCandidate {
        if (!(stepUs > 0)) throw new IllegalArgumentException("step time must be > 0 us, got " + stepUs);
        if (measuredUs < 0 || idealUs < 0) throw new IllegalArgumentException(op + " at " + location + ": times must be >= 0");
    }

    public double gapUs() { return Math.max(0, measuredUs - idealUs); }

    public double share() { return measuredUs / stepUs; }

    public double score() { return gapUs() * share(); }

    public double gapShare() { return gapUs() / stepUs; }

    /** How a candidate reads: where in the analyst's code, then the op. */
    public String label() { return (location.isEmpty() ? "(outside the model file)" : location) + " " + op + " " + pass; }
}
